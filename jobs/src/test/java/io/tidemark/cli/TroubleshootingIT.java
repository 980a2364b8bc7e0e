package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.publish.ArrivalChecks;
import io.tidemark.publish.PublishRefused;
import io.tidemark.services.Services;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Docs;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recipes of docs/troubleshooting.md, as a user meets the failures and releases them: each failure is made the
 * way it happens (a {@code stream all} killed half way, a row written by hand on the staging branch, a wrong write on
 * a restatement's branch, an arrival not streamed yet), its one line is what the page shows and names the recipe's
 * anchor, and then the recipe's commands, read from the page itself, run as they are written (the placeholders filled
 * in) and release it. On a tidemark home of its own with the default names, so that the page's commands need no
 * other: `ingest`, `main`, `facts.events`, run id 42. Every command is the real one in a JVM of its own.
 */
@Steps
class TroubleshootingIT {
  private static final Path PAGE = Docs.repo().resolve("docs/troubleshooting.md");
  private Map<String, String> env;
  private NessieRest nessie;
  private Path dir;

  @BeforeAll
  void aHomeOfItsOwn(@TempDir Path dir) throws IOException {
    this.dir = dir;
    env = TestStack.environment(Files.createDirectories(dir.resolve("home")));
    succeeds("bootstrap");
    nessie = new NessieRest(URI.create("http://127.0.0.1:" + env.get("TIDEMARK_NESSIE_PORT") + "/api/v2"));
    assertThat(nessie.exists("ingest")).isTrue();
  }

  @AfterAll
  void stopItsServices() {
    if (env != null) {
      new Services(TidemarkConfig.of(env, Map.of())).down();
    }
  }

  /** A run killed mid-way leaves an arrival some streams have not taken in: refused, released by rerunning them. */
  @Test
  @Order(1)
  void aStreamAllKilledHalfWayIsRefusedBySameArrivalsAndReleasedByItsRecipe() {
    succeeds("land", "--scenario", "seed", "--arrival", "1");
    Cli.Result killed = Cli.run(Cli.crashing(env, "dedup:after-commit:*"), "stream", "all");
    assertThat(killed.exitCode()).as("%s", killed).isEqualTo(137);
    String main = nessie.hash("main");

    Cli.Result refused = refused(ArrivalChecks.SAME_ARRIVALS);
    assertThat(refused.out()).contains("FAIL " + ArrivalChecks.SAME_ARRIVALS).contains("run `tidemark stream all`");
    assertThat(nessie.hash("main")).as("main stays").isEqualTo(main);

    List<Cli.Result> ran = runRecipe("refused-by-same-arrivals", Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("published events arrival 1, companies arrival 1, ");
    assertThat(nessie.hash("main")).isNotEqualTo(main);
  }

  /** A row written by hand on the staging branch: refused, released by putting the branch back before it. */
  @Test
  @Order(2)
  void aHandMadeWriteIsRefusedByStagedWritersAndReleasedByItsRecipe() {
    String before = nessie.hash("ingest");
    Cli.Result hand = Cli.run(with("TIDEMARK_NESSIE_REF", "ingest"), "sql",
        "INSERT INTO facts.events SELECT * FROM facts.events LIMIT 1");
    assertThat(hand.exitCode()).as("%s", hand).isZero();
    assertThat(nessie.hash("ingest")).as("the hand-made commit").isNotEqualTo(before);
    String main = nessie.hash("main");

    Cli.Result refused = refused(ArrivalChecks.WRITERS);
    assertThat(refused.out()).contains("made by none of tidemark's jobs");
    assertThat(nessie.hash("main")).isEqualTo(main);

    List<Cli.Result> ran = runRecipe("refused-by-staged-writers", Map.of("<hash of the commit before it>", before));
    assertThat(ran.get(0).out()).as("the log shows the hand-made commit, and the one before it").contains(before)
        .contains("Iceberg append against facts.events");
    assertThat(nessie.hash("ingest")).isEqualTo(before);
    assertThat(ran.get(ran.size() - 1).out()).contains("publish: nothing staged on ingest");
    assertThat(nessie.hash("main")).isEqualTo(main);
  }

  /**
   * A restatement whose branch holds a write its run did not make: the audit fails in one line naming the recipe;
   * the recipe drops the branch, runs the same run id again and publishes, and main holds the corrections.
   */
  @Test
  @Order(3)
  void aFailedAuditIsReleasedByItsRecipe() {
    for (int k = 2; k <= 4; k++) {
      succeeds("land", "--scenario", "seed", "--arrival", Integer.toString(k));
      succeeds("stream", "all");
      succeeds("publish");
    }
    assertThat(succeeds("restate", "plan", "--run-id", "42").out()).containsPattern("planned: [1-9]\\d* window");
    succeeds("restate", "write", "--run-id", "42");
    // a write on the branch that the run did not make (a bug, or a hand): every count on it 100 higher
    Cli.Result wrong = Cli.run(with("TIDEMARK_NESSIE_REF", "restate-42"), "sql",
        "UPDATE facts.event_counts SET n = n + 100");
    assertThat(wrong.exitCode()).as("%s", wrong).isZero();
    String ingest = nessie.hash("ingest");
    String main = nessie.hash("main");

    Cli.Result audit = Cli.run(env, "restate", "audit", "--run-id", "42");
    assertThat(audit.exitCode()).as("%s", audit).isEqualTo(1);
    assertThat(audit.errLines()).as("%s", audit).singleElement().asString().startsWith("tidemark: audit failed: ")
        .contains("ingest is untouched").endsWith("see docs/troubleshooting.md#a-failed-restatement-audit");
    assertThat(audit.err()).as("a finding has no stack trace").doesNotContain("\tat ");
    assertThat(nessie.hash("ingest")).isEqualTo(ingest);

    List<Cli.Result> ran = runRecipe("a-failed-restatement-audit", Map.of());
    assertThat(ran.get(0).out()).as("the failed check, on the branch").contains("DuckDB recount");
    assertThat(ran.get(3).out()).as("the run again").contains("merged into ingest");
    assertThat(nessie.exists("restated-42")).isTrue();
    assertThat(ran.get(ran.size() - 1).out()).contains("published ").contains(" to main (");
    assertThat(nessie.hash("main")).isNotEqualTo(main);
    Cli.Result wrongOnMain = succeeds("sql", "--format", "csv", "SELECT count(*) AS wrong FROM facts.event_counts "
        + "WHERE n >= 100");
    assertThat(wrongOnMain.out().strip()).as("main holds the corrections, not the wrong write").endsWith("\n0");
  }

  /** A check that finds something: one line with the next step and the recipe, exit 1, no stack trace. */
  @Test
  @Order(4)
  void aFailedCheckIsAFindingInOneLine() throws IOException {
    Path lines = Files.writeString(dir.resolve("more.jsonl"),
        "{\"event_id\":500,\"company_id\":\"c1\",\"amount\":1.0,\"event_ts\":\"2026-01-01T02:00:00Z\"}\n");
    succeeds("land", "--from", lines.toString(), "--dataset", "events");
    Cli.Result check = Cli.run(env, "check", "--branch", "ingest");
    assertThat(check.exitCode()).as("%s", check).isEqualTo(1);
    assertThat(check.errLines()).as("%s", check).singleElement().asString()
        .startsWith("tidemark: check failed on ingest: events: raw + rejected = ")
        .contains("(the raw stream has not read them all: tidemark stream raw)")
        .endsWith("see docs/troubleshooting.md#a-failed-check");
    assertThat(check.out()).contains("MISMATCH");
    assertThat(Docs.sections(PAGE)).containsKey("a-failed-check");
  }

  /** A usage error through the jar: one line, exit 2, before any service is asked. */
  @Test
  @Order(5)
  void aCommandLineThatDoesNotParseIsOneLine() {
    Cli.Result r = Cli.run(env, "land");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).singleElement().asString()
        .startsWith("tidemark: missing required argument").endsWith("(see tidemark land --help)");
    assertThat(r.out()).isEmpty();
  }

  /** `tidemark publish` refused by {@code check}: exit 1, one line naming it and its recipe, which the page has. */
  private Cli.Result refused(String check) {
    Cli.Result r = Cli.run(env, "publish");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    // (after the check it names, the line lists the others that failed: "(also failed: ...)")
    assertThat(r.errLines()).as("%s", r).singleElement().asString().matches("tidemark: publish refused by check "
        + check + "( \\(also failed: [a-z0-9, -]+\\))?: main unchanged, staged commit tagged rejected-[0-9a-f]{8}; see "
        + java.util.regex.Pattern.quote(PublishRefused.recipe(check)));
    assertThat(r.err()).as("a finding has no stack trace").doesNotContain("\tat ");
    assertThat(r.out()).contains("release it: " + PublishRefused.recipe(check));
    return r;
  }

  /** Runs a recipe's commands as the page writes them, {@code fill} put in for its placeholders; each succeeds. */
  private List<Cli.Result> runRecipe(String anchor, Map<String, String> fill) {
    List<String> lines = Docs.recipe(PAGE, anchor);
    assertThat(lines).as("#%s's commands", anchor).isNotEmpty();
    List<Cli.Result> results = new ArrayList<>();
    for (String line : lines) {
      String filled = line;
      for (Map.Entry<String, String> f : fill.entrySet()) {
        filled = filled.replace(f.getKey(), f.getValue());
      }
      assertThat(filled).as("a placeholder left in %s", line).doesNotContain("<");
      List<String> words = Docs.words(filled);
      assertThat(words.get(0)).isEqualTo("./tidemark");
      Cli.Result r = Cli.run(env, words.subList(1, words.size()).toArray(String[]::new));
      assertThat(r.exitCode()).as("#%s: %s -> %s", anchor, filled, r).isZero();
      results.add(r);
    }
    return results;
  }

  private Map<String, String> with(String name, String value) {
    Map<String, String> out = new HashMap<>(env);
    out.put(name, value);
    return out;
  }

  private Cli.Result succeeds(String... args) {
    Cli.Result r = Cli.run(env, args);
    assertThat(r.exitCode()).as("tidemark %s: %s", String.join(" ", args), r).isZero();
    return r;
  }
}
