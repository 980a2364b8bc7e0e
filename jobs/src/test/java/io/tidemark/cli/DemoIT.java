package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.publish.Publisher;
import io.tidemark.testing.Cli;
import io.tidemark.testing.HeadlessChromium;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.projectnessie.client.NessieClientBuilder;
import org.projectnessie.client.api.NessieApiV2;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.LogResponse;

/**
 * {@code tidemark demo}, the README's first command, on the shared stack in namespaces, buckets and checkpoints of its
 * own (what another test wrote cannot show up in its tables), and branches of its own: every step shows, main stays
 * one step behind the staging branch until each publish, the Nessie UI shows main moving in whole arrivals, and a
 * second run changes nothing. Its tables are then written for the Airflow test (dags/tests/test_native_stack.py),
 * which compares the tables its DAG runs made with them instead of running the demo once more.
 */
class DemoIT extends StackTest {
  private static final Path REPO = Path.of(System.getProperty("tidemark.repo.dir", "..")).toAbsolutePath().normalize();
  private static final Path SHOTS = REPO.resolve("target/screenshots");

  @Test
  void demoRunsEveryStepAndIsSafeToRunAgain() throws Exception {
    String name = TestStack.unique("demo");
    // branches of its own: publish merges the whole staging branch, which other tests' pipelines also write on
    String main = name + "_main";
    String ingest = name + "_ingest";
    TidemarkConfig config = stack.config().scoped(name, tmp.resolve("checkpoints"))
        .with(Map.of(Setting.NESSIE_REF, main, Setting.STAGING_BRANCH, ingest));
    Map<String, String> env = stack.env(config);
    Cli.Result first = Cli.run(env, "demo");
    assertThat(first.exitCode()).as("%s", first).isZero();
    assertThat(first.out())
        .contains("== 1. services", "== 2. bootstrap", "== 3. arrivals", "== 4. what is in the landing",
            "== 5. the tables on branch " + main, "== where to look")
        .contains("window [2026-01-01 00:00,00:05) c1 finalized: n=4",
            "late event 7 (c1 at 2026-01-01 00:03:00) dropped by the counts",
            "dedup: 2 batch(es), 9 lines read, 8 row(s) into " + SeedTables.of(config).events() + ", 1 duplicate(s) dropped",
            "companies dimension (SCD2) now:", "== 6. restatement",
            "window 2026-01-01T00:00:00Z c1: n 4 -> 6", "window 2026-01-01T00:05:00Z c3: n (none) -> 1",
            "PASS windowed-counts: DuckDB recount from the raw archive", "lateness for windowed-counts (watermark delay")
        .containsPattern("merged into " + ingest + " \\([0-9a-f]+\\), tagged restated-")
        .containsPattern("\\| c1\\s+\\| Acme Corp \\| gold\\s+\\| 01-01 00:30 \\| 01-01 00:45 \\| false")
        .contains("/events/arrival=0003/seed-counts.jsonl", "/companies/arrival=0004/seed-scd2.jsonl")
        .containsPattern(SeedTables.of(config).eventCounts().toString().replace(".", "\\.") + "\\s+\\d+ rows")
        .contains("Nessie UI (branches, commits, tables): " + stack.endpoints().nessieUi(),
            stack.endpoints().nessieUi() + "commits/" + main, "./tidemark log " + main, "./tidemark log " + ingest);
    assertThat(first.errLines()).as("nothing on stderr").isEmpty();
    assertMainOneStepBehindUntilEachPublish(first.out(), config, main, ingest);
    List<CommitMeta> publishes = assertOnePublishPerArrival(config, main, ingest);
    // read in this JVM, whose Spark catalog is the stack's: the scoped pipeline's tables named on its own main
    writeTablesForTheAirflowTest(config, stack.env(stack.config().scoped(name, tmp.resolve("checkpoints"))), main);
    seeTheStoryInTheNessieUi(main, ingest, publishes);

    String mainBefore = stack.nessie().hash(main);
    Cli.Result second = Cli.run(env, "demo");
    assertThat(second.exitCode()).as("%s", second).isZero();
    assertThat(second.out()).contains("bootstrap: nothing to do").doesNotContain("  landed")
        .contains("windowed-counts: 0 batch(es), 0 lines read")
        .contains("nothing to restate: no late data since the last restatement; no branch, no commit")
        .contains(main + " shows what " + ingest + " has: arrival 4").doesNotContain("is one step behind");
    assertThat(second.out().lines().filter(l -> l.contains("already there, unchanged")).count())
        .as("every seed file already landed").isEqualTo(10);
    assertThat(second.out().lines().filter(l -> l.startsWith("publish: nothing staged on " + ingest)).count())
        .as("nothing to publish after any arrival nor the restatement").isEqualTo(5);
    assertThat(stack.nessie().hash(main)).isEqualTo(mainBefore);
  }

  /**
   * For each arrival and the restatement, in order: main one step behind the staging branch (it shows the arrival
   * before, or the counts before the restatement), then the publish, then main showing what the staging branch shows.
   */
  private static void assertMainOneStepBehindUntilEachPublish(String out, TidemarkConfig config, String main,
                                                              String ingest) {
    String seen = "(?:no arrival|arrival (\\d+)) \\(" + Pattern.quote(SeedTables.of(config).events().toString())
        + ": (\\d+) rows; " + Pattern.quote(SeedTables.of(config).eventCounts().toString()) + ": (\\d+) counted\\)";
    Pattern behind = Pattern.compile(Pattern.quote(main + " is one step behind " + ingest + ": " + main + " shows ")
        + seen + ", " + Pattern.quote(ingest + " ") + seen);
    Pattern caughtUp = Pattern.compile(Pattern.quote(main + " caught up: it shows ") + seen + Pattern.quote(", as "
        + ingest + " does"));
    List<String> story = out.lines().map(String::strip).filter(l -> l.startsWith(main + " is one step behind")
        // not bootstrap's "published to <main> (<hash>)": the tables it made, before any arrival
        || l.startsWith("published ") && !l.startsWith("published to ") && l.contains(" to " + main + " (")
        || l.startsWith(main + " caught up"))
        .toList();
    assertThat(story).as("behind, published, caught up: per arrival, then for the restatement").hasSize(15);
    for (int step = 0; step < 5; step++) {
      int a = Math.min(step + 1, 4);
      String what = step < 4 ? "arrival " + a : "the restatement";
      Matcher before = behind.matcher(story.get(3 * step));
      assertThat(before.matches()).as("%s before its publish: %s", what, story.get(3 * step)).isTrue();
      Matcher after = caughtUp.matcher(story.get(3 * step + 2));
      assertThat(after.matches()).as("%s after its publish: %s", what, story.get(3 * step + 2)).isTrue();
      assertThat(before.group(4)).as("%s staged", what).isEqualTo(String.valueOf(a));
      assertThat(List.of(after.group(1), after.group(2), after.group(3))).as("%s: main caught up", what)
          .containsExactly(before.group(4), before.group(5), before.group(6));
      String publish = story.get(3 * step + 1);
      if (step < 4) {
        assertThat(before.group(1)).as("main one arrival behind").isEqualTo(a == 1 ? null : String.valueOf(a - 1));
        assertThat(publish).as("arrival %d's publish", a).startsWith("published " + arrivalOfFeeds(a) + ", ");
      } else {
        assertThat(before.group(1)).as("the restatement adds no arrival").isEqualTo("4");
        assertThat(Long.parseLong(before.group(6))).as("late events the restatement counted, not yet on main")
            .isGreaterThan(Long.parseLong(before.group(3)));
        assertThat(publish).startsWith("published no new arrival, ");
      }
      assertThat(publish).contains("checks passed");
    }
  }

  /**
   * Main's log: a publish commit per arrival, oldest first, each naming the staged commit it published (a commit of
   * the staging branch), the arrival and the checks; then one for the restatement. No other commit of this
   * pipeline reaches main. Returns the publish commits, newest first.
   */
  private List<CommitMeta> assertOnePublishPerArrival(TidemarkConfig config, String main, String ingest)
      throws Exception {
    String pipeline = SeedTables.of(config).rawEvents().toString();
    try (NessieApiV2 api = NessieClientBuilder.createClientBuilderFromSystemSettings()
        .withUri(stack.endpoints().nessieApi()).build(NessieApiV2.class)) {
      List<String> staged = api.getCommitLog().refName(ingest).stream().map(e -> e.getCommitMeta().getHash())
          .toList();
      List<CommitMeta> ours = api.getCommitLog().refName(main).stream().map(LogResponse.LogEntry::getCommitMeta)
          .filter(m -> pipeline.equals(m.getProperties().get(CommitKeys.PIPELINE))).toList();
      assertThat(ours).as("%s's commits on %s", pipeline, main).isNotEmpty()
          .allSatisfy(m -> {
            assertThat(m.getProperties()).as("%s", m).containsEntry(CommitKeys.STAGE, "publish")
                .containsEntry(CommitKeys.AUDIT, CommitKeys.PASSED).containsEntry(CommitKeys.STAGED_ON, ingest)
                .containsKey(CommitKeys.CHECKS);
            assertThat(staged).as("the staged commit %s published", m.getMessage())
                .contains(m.getProperties().get(CommitKeys.PUBLISHED));
            assertThat(m.getAuthor()).isEqualTo(Publisher.AUTHOR);
          });
      List<CommitMeta> oldestFirst = new ArrayList<>(ours);
      java.util.Collections.reverse(oldestFirst);
      assertThat(oldestFirst).extracting(m -> m.getProperties().get(CommitKeys.arrivalsOf("companies")))
          .as("one publish per arrival, then the restatement's").containsExactly("1", "2", "3", "4", null);
      assertThat(oldestFirst.get(0).getMessage()).startsWith("publish " + arrivalOfFeeds(1) + " from " + ingest + ": ");
      assertThat(oldestFirst.get(4).getProperties()).as("the restatement's publish")
          .containsKey(CommitKeys.ROWS + SeedTables.of(config).eventCounts());
      return ours;
    }
  }

  /**
   * The Nessie UI, in a real browser: main's commit log lists the publish commits, its branch list has the staging
   * branch. Screenshots in target/screenshots for people to look at.
   */
  private void seeTheStoryInTheNessieUi(String main, String ingest, List<CommitMeta> publishes) throws Exception {
    String ui = stack.endpoints().nessieUi();
    try (HeadlessChromium chromium = HeadlessChromium.start(1400, 1000)) {
      chromium.open(ui + "commits/" + main);
      // the UI is a client-side app: the page has loaded long before the log is rendered
      String log = waitForText(chromium, List.of("publish " + arrivalOfFeeds(1) + " from " + ingest,
          "publish " + arrivalOfFeeds(4) + " from " + ingest, "publish corrections and maintenance from " + ingest));
      assertThat(log).contains(Publisher.AUTHOR);
      for (CommitMeta m : publishes) {
        assertThat(log).as("the log shows commit %s", m.getHash()).contains(m.getHash().substring(0, 8));
      }
      chromium.screenshot(SHOTS.resolve("nessie-" + "main-log.png"));

      chromium.open(ui + "tree/" + main);
      waitForText(chromium, List.of(main));
      // the reference picker lists the branches once opened
      assertThat(chromium.evaluate("(() => { const els = [...document.querySelectorAll('button, a, [role=button], "
          + "[role=combobox], div, span')].filter(e => e.innerText && e.innerText.trim() === '" + main + "' "
          + "&& e.offsetParent !== null); if (!els.length) return false; els[els.length - 1].click(); return true; "
          + "})()").asBoolean()).as("the branch picker of the Nessie UI").isTrue();
      waitForText(chromium, List.of(ingest));
      chromium.screenshot(SHOTS.resolve("nessie-branches.png"));
    }
  }

  /** The page's text once it shows every one of {@code words}; fails naming those missing after two minutes. */
  private static String waitForText(HeadlessChromium chromium, List<String> words) throws Exception {
    long deadline = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos();
    while (true) {
      String text = chromium.evaluate("document.body ? document.body.innerText : ''").asText();
      List<String> missing = words.stream().filter(w -> !text.contains(w)).toList();
      if (missing.isEmpty()) {
        return text;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the Nessie UI does not show " + missing + "; it shows: "
            + text.substring(0, Math.min(1500, text.length())));
      }
      Thread.sleep(500);
    }
  }

  /**
   * The demo's tables as dags/tests/pipeline_tables.json selects them, through {@code tidemark sql --format json}
   * as the Airflow test reads its own, into target/airflow-tests/demo-tables.json with the SHA-256 of the jar that
   * made them: the Airflow test uses them only when its jar is the same, and runs the demo itself otherwise.
   */
  private void writeTablesForTheAirflowTest(TidemarkConfig config, Map<String, String> env, String main)
      throws IOException {
    ObjectMapper json = new ObjectMapper();
    JsonNode spec = json.readTree(REPO.resolve("dags/tests/pipeline_tables.json").toFile());
    // a scoped pipeline's tables, in the order of the default ones: the default name is the name in the spec
    List<TableName> defaults = SeedTables.of(Seed.PIPELINE).all();
    List<TableName> scoped = SeedTables.of(config).all();
    List<String> selects = new ArrayList<>();
    for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
      String table = it.next();
      if (!table.startsWith("_")) {
        int i = defaults.stream().map(TableName::toString).toList().indexOf(table);
        assertThat(i).as("%s is a table of the pipeline", table).isNotNegative();
        selects.add("SELECT '" + table + "' AS t, to_json(struct(" + spec.get(table).asText() + ")) AS j FROM "
            + scoped.get(i).sqlAt(main));
      }
    }
    Cli.Result rows = Cli.inProcess(env, "sql", "--format", "json", String.join(" UNION ALL ", selects));
    assertThat(rows.exitCode()).as("%s", rows).isZero();
    ObjectNode out = json.createObjectNode();
    out.put("jar_sha256", sha256(Path.of(System.getProperty("tidemark.jar"))));
    out.set("rows", json.readTree(rows.out()));
    Path file = Files.createDirectories(REPO.resolve("target/airflow-tests")).resolve("demo-tables.json");
    // the Airflow test may be waiting for it (./run-tests runs it alongside): it must never see half a file
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, json.writeValueAsString(out));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * How publish names seed arrival {@code n}: the arrival of each feed it carries (the seed's fourth holds company
   * changes only).
   */
  private static String arrivalOfFeeds(int n) {
    return n < 4 ? "events arrival " + n + ", companies arrival " + n : "companies arrival " + n;
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
