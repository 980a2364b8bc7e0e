package io.tidemark.cli;

import io.tidemark.testing.SeedTables;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.publish.ArrivalChecks;
import io.tidemark.publish.PublishRefused;
import io.tidemark.restate.Restatement;
import io.tidemark.services.Endpoints;
import io.tidemark.services.Services;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Docs;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.OtherHome;
import io.tidemark.testing.Recipes;
import io.tidemark.testing.ReferencePipeline;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recipes of docs/troubleshooting.md, as a user meets the failures and releases them: each failure is made the
 * way it happens (a {@code stream all} killed half way, a publish killed after its merge, a row written by hand on
 * the staging branch, a landed file written again, a job's wrong version of a company, a window written twice, a
 * user's write on main, a wrong write on a restatement's branch, an arrival not streamed yet, a branch that does not
 * exist), its one line is what the page shows, and then the recipe's commands, read from the page itself, run as they
 * are written (the placeholders filled in from what the failure printed) and release it. After each, main holds what a
 * pipeline that met no failure published from the same landed files ({@link #assertMainAsWithoutFailures}). On a
 * tidemark home of its own with the default names, {@code .tidemark} in a directory the shell lines run in, so that the
 * page's commands need no other: `ingest`, `main`, `facts.events`, run id 42. Every command is the real one, through
 * the launcher to the home's resident driver as on a native stack (`infra/native/stack up` starts one), a crash point
 * in a JVM of its own; what a person or another engine writes by hand is written from the test's Spark
 * ({@link OtherHome}).
 */
@Steps
class TroubleshootingIT {
  private static final Path PAGE = Docs.repo().resolve("docs/troubleshooting.md");
  private static final Pattern ASSIGN = Pattern.compile("tidemark sql \"ASSIGN BRANCH (\\S+) TO \\S+ AT ([0-9a-f]{64}) "
      + "IN nessie\"");
  private final TestStack stack = TestStack.get();
  private Map<String, String> env;
  private TidemarkConfig config;
  private NessieRest nessie;
  private Path dir;
  private Path home;
  private Recipes recipes;
  private OtherHome byHand;
  private Storage storage;
  private Lander lander;
  /** The same landed files, streamed and published without a failure on the shared stack. */
  private ReferencePipeline reference;

  @BeforeAll
  void aHomeOfItsOwn(@TempDir Path dir) throws IOException {
    this.dir = dir;
    home = Files.createDirectories(dir.resolve(".tidemark"));
    env = TestStack.environment(home);
    config = TidemarkConfig.of(env, Map.of());
    succeeds("bootstrap");
    Cli.Result driver = Cli.run(env, "driver", "start");
    assertThat(driver.exitCode()).as("%s", driver).isZero();
    nessie = new NessieRest(URI.create("http://127.0.0.1:" + env.get("TIDEMARK_NESSIE_PORT") + "/api/v2"));
    assertThat(nessie.exists("ingest")).isTrue();
    Endpoints endpoints = new Services(config).endpoints();
    byHand = new OtherHome(stack.spark(), config, endpoints);
    storage = Storage.connect(config, endpoints);
    lander = new Lander(storage, config.landingBucket(), "");
    recipes = new Recipes(PAGE, dir, env);
    reference = new ReferencePipeline(stack, "troubleshooting_reference", dir.resolve("reference-checkpoints"), storage,
        config, byHand);
  }

  @AfterAll
  void stopItsServices() {
    if (storage != null) {
      storage.close();
    }
    if (env != null) {
      Cli.run(env, "driver", "stop");
      new Services(TidemarkConfig.of(env, Map.of())).down();
    }
  }

  /** A run killed mid-way leaves an arrival some streams have not taken in: refused, released by rerunning them. */
  @Test
  @Order(1)
  void aStreamAllKilledHalfWayIsRefusedBySameArrivalsAndReleasedByItsRecipe() {
    lander.land(SeedScenarios.ALL.arrivals().get(0));
    Cli.Result killed = Cli.run(Cli.crashing(env, "dedup:after-commit:*"), "stream", "all");
    assertThat(killed.exitCode()).as("%s", killed).isEqualTo(137);
    String main = nessie.hash("main");

    Cli.Result refused = refused(ArrivalChecks.SAME_ARRIVALS);
    assertThat(refused.out()).contains("FAIL " + ArrivalChecks.SAME_ARRIVALS).contains("run `tidemark stream all`")
        .contains("release it: " + PublishRefused.recipe(ArrivalChecks.SAME_ARRIVALS) + ", here:")
        .contains("  tidemark stream all\n  tidemark publish");
    assertThat(nessie.hash("main")).as("main stays").isEqualTo(main);

    List<Cli.Result> ran = recipes.run("refused-by-same-arrivals", Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("published events arrival 1, companies arrival 1, ");
    assertMainAsWithoutFailures();
  }

  /**
   * A row written by hand on the staging branch: refused, and the refusal prints the command that puts the branch back
   * on the commit before it, with its whole hash, which the recipe's placeholder takes.
   */
  @Test
  @Order(2)
  void aHandMadeWriteIsRefusedByStagedWritersAndReleasedByItsRecipe() {
    String before = nessie.hash("ingest");
    byHand.spark().sql("INSERT INTO " + byHand.at(SeedTables.of(config).events(), "ingest") + " SELECT * FROM "
        + byHand.at(SeedTables.of(config).events(), "ingest") + " LIMIT 1");
    assertThat(nessie.hash("ingest")).as("the hand-made commit").isNotEqualTo(before);
    String main = nessie.hash("main");

    Cli.Result refused = refused(ArrivalChecks.WRITERS);
    assertThat(refused.out()).contains("made by none of tidemark's jobs")
        .contains("main stays at " + main + ";");
    assertThat(undo(refused.out())).as("the undo the refusal prints: the commit before the hand-made one")
        .isEqualTo(List.of("ingest", before));
    assertThat(nessie.hash("main")).isEqualTo(main);

    List<Cli.Result> ran = recipes.run("refused-by-staged-writers", Map.of("<hash of the commit before it>",
        undo(refused.out()).get(1)));
    assertThat(ran.get(0).out()).as("tidemark log: the hand-made commit, one line").containsPattern(
        "(?m)^[0-9a-f]{12}  \\S+ \\S+  \\S*  Iceberg append against facts.events$");
    assertThat(nessie.hash("ingest")).isEqualTo(before);
    assertThat(ran.get(ran.size() - 1).out()).contains("publish: nothing staged on ingest");
    assertThat(nessie.hash("main")).isEqualTo(main);
  }

  /** A publish killed right after its merge: run again, it finds nothing staged; main has the arrival once. */
  @Test
  @Order(3)
  void aPublishKilledAfterItsMergeIsReleasedByRunningItAgain() {
    lander.land(SeedScenarios.ALL.arrivals().get(1));
    succeeds("stream", "all");
    String main = nessie.hash("main");
    Cli.Result killed = Cli.run(Cli.crashing(env, "publish:after-merge"), "publish");
    assertThat(killed.exitCode()).as("%s", killed).isEqualTo(137);
    assertThat(nessie.hash("main")).as("the merge was made before the JVM halted").isNotEqualTo(main);

    List<Cli.Result> ran = recipes.run("a-run-killed-mid-way", Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("publish: nothing staged on ingest");
    assertThat(nessie.entriesSince("main", main)).as("one publish of arrival 2").hasSize(1);
    assertMainAsWithoutFailures();
  }

  /**
   * A landed file written again after the raw stream read it (a line added): refused by lines-accounted; put back as
   * it was read, and the new line landed as an arrival of its own by the recipe, it is published.
   */
  @Test
  @Order(4)
  void aLandedFileWrittenAgainIsRefusedByLinesAccountedAndReleasedByItsRecipe() throws IOException {
    List<Lander.Outcome> landed = lander.land(SeedScenarios.ALL.arrivals().get(2));
    succeeds("stream", "all");
    reference.takeIn();
    URI file = landed.stream().map(o -> URI.create(o.uri())).filter(u -> u.getPath().contains("/events/"))
        .findFirst().orElseThrow();
    String key = file.getPath().substring(1);
    byte[] original = storage.get(file.getHost(), key);
    String added = "{\"event_id\":900,\"company_id\":\"c2\",\"amount\":3.25,\"event_ts\":\"2026-01-01T00:21:00Z\"}\n";
    storage.put(file.getHost(), key, (new String(original, StandardCharsets.UTF_8) + added)
        .getBytes(StandardCharsets.UTF_8), "application/x-ndjson");

    Cli.Result refused = refused(ArrivalChecks.LINES);
    assertThat(refused.out()).contains(key.substring(key.lastIndexOf('/') + 1)).contains("line(s) landed");

    // the recipe's first step, by hand: the file put back as the raw stream read it
    storage.put(file.getHost(), key, original, "application/x-ndjson");
    Path newLines = Files.writeString(dir.resolve("new-lines.jsonl"), added);
    List<Cli.Result> ran = recipes.run("refused-by-lines-accounted", Map.of("new-lines.jsonl", newLines.toString()));
    assertThat(ran.get(0).out()).as("landed as the next events arrival").contains("arrival 4: ");
    assertThat(ran.get(ran.size() - 1).out()).contains("published events arrival");
    assertMainAsWithoutFailures();
  }

  /**
   * A job's wrong version of a company (an overlap, committed as the SCD2 stream commits): refused by
   * scd2-invariants; the recipe runs the SCD2 stream on a new checkpoint, which writes the dimension's difference to the
   * history rebuilt from the change log, and publish takes it, though the stream read every change again (it was
   * refused for ever by same-arrivals: finding 1).
   */
  @Test
  @Order(5)
  void aWrongVersionIsRefusedByScd2InvariantsAndReleasedByTheStreamOnANewCheckpoint() throws Exception {
    TableName companies = SeedTables.of(config).companies();
    Dataset<Row> overlap = byHand.spark().table(byHand.at(companies, "ingest")).where("company_id = 'c1' AND is_current")
        .withColumn("valid_from", expr("valid_from + INTERVAL 1 MINUTE")).withColumn("tier", lit("overlap"));
    assertThat(overlap.count()).isEqualTo(1);
    overlap.writeTo(byHand.at(companies, "ingest")).option("snapshot-property." + CommitKeys.STREAM, "scd2").append();

    Cli.Result refused = refused(ArrivalChecks.SCD2);
    assertThat(refused.out()).contains("c1").contains("  mv " + home.resolve("checkpoints/scd2") + " "
        + home.resolve("checkpoints/scd2.before-rebuild"));

    List<Cli.Result> ran = recipes.run("refused-by-scd2-invariants", Map.of());
    assertThat(ran.get(ran.size() - 1).out()).as("published, not refused by same-arrivals")
        .contains("published ").contains("6 checks passed");
    assertThat(byHand.spark().table(byHand.at(companies, "main")).where("tier = 'overlap'").count()).isZero();
    assertMainAsWithoutFailures();
  }

  /** A window written again, as a counts stream would: refused by windows-final; the printed undo releases it. */
  @Test
  @Order(6)
  void aWindowWrittenTwiceIsRefusedByWindowsFinalAndReleasedByItsRecipe() throws Exception {
    TableName counts = SeedTables.of(config).eventCounts();
    String clean = nessie.hash("ingest");
    Dataset<Row> again = byHand.spark().table(byHand.at(counts, "main")).orderBy("company_id", "w_start").limit(1);
    again.writeTo(byHand.at(counts, "ingest")).option("snapshot-property." + CommitKeys.STREAM, "windowed-counts")
        .option("snapshot-property." + CommitKeys.WATERMARK_MS, Long.toString(Long.MAX_VALUE / 2)).append();

    Cli.Result refused = refused(ArrivalChecks.WINDOWS);
    assertThat(refused.out()).contains("published before");
    assertThat(undo(refused.out())).isEqualTo(List.of("ingest", clean));
    List<Cli.Result> ran = recipes.run("refused-by-windows-final", Map.of("<hash of the commit before it>", clean));
    assertThat(ran.get(1).out()).as("the branch put back").isNotNull();
    assertThat(byHand.spark().table(byHand.at(counts, "ingest")).count())
        .isEqualTo(byHand.spark().table(byHand.at(counts, "main")).count());
    assertMainAsWithoutFailures();
  }

  /** A user's write on main to a table the arrival changes: a conflict in one line naming the write and its undo. */
  @Test
  @Order(7)
  void aWriteOnMainIsAConflictReleasedByItsRecipe() throws Exception {
    lander.land(SeedScenarios.ALL.arrivals().get(3));
    succeeds("stream", "all");
    String clean = nessie.hash("main");
    TableName companies = SeedTables.of(config).companies();
    byHand.spark().table(byHand.at(companies, "main")).limit(1).withColumn("company_id", lit("u1"))
        .writeTo(byHand.at(companies, "main")).append();

    Cli.Result conflict = Cli.run(env, "publish");
    assertThat(conflict.exitCode()).as("%s", conflict).isEqualTo(1);
    assertThat(conflict.errLines()).as("%s", conflict).singleElement().asString()
        .startsWith("tidemark: conflict: main changed " + companies + " since it was staged, outside `tidemark "
            + "publish` by ").contains("Iceberg append against " + companies)
        .endsWith("see docs/troubleshooting.md#a-conflict-on-main");
    assertThat(undo(conflict.err())).isEqualTo(List.of("main", clean));

    List<Cli.Result> ran = recipes.run("a-conflict-on-main", Map.of("<hash of the commit before it>",
        undo(conflict.err()).get(1)));
    assertThat(ran.get(ran.size() - 1).out()).contains("published companies arrival 4, ");
    assertMainAsWithoutFailures();
  }

  /**
   * A restatement whose branch holds a write its run did not make: the audit fails in one line naming the window it
   * found wrong and the recipe; with nowhere to print (a full disk) the line is in the run's log; the recipe drops the
   * branch, runs the same run id again and publishes, and main holds the corrections, as a restatement without the
   * wrong write makes them.
   */
  @Test
  @Order(8)
  void aFailedAuditIsReleasedByItsRecipe() throws Exception {
    assertThat(succeeds("restate", "plan", "--run-id", "42").out()).containsPattern("planned: [1-9]\\d* window");
    succeeds("restate", "write", "--run-id", "42");
    // a write on the branch that the run did not make (a bug, or a hand): every count on it 100 higher
    byHand.spark().sql("UPDATE " + byHand.at(SeedTables.of(config).eventCounts(), "restate-42") + " SET n = n + 100");
    String ingest = nessie.hash("ingest");
    String main = nessie.hash("main");

    Cli.Result audit = Cli.run(env, "restate", "audit", "--run-id", "42");
    assertThat(audit.exitCode()).as("%s", audit).isEqualTo(1);
    assertThat(audit.errLines()).as("%s", audit).singleElement().asString().startsWith("tidemark: audit failed: ")
        .containsPattern("window c\\d 2026-01-01T00:\\d\\d:00Z holds n=1\\d\\d, DuckDB computes n=\\d")
        .contains("ingest is untouched").endsWith("see docs/troubleshooting.md#a-failed-restatement-audit");
    assertThat(audit.out()).as("the failed check names what it found, not its passing text")
        .doesNotContain("hold one row each violation");
    assertThat(audit.err()).as("a finding has no stack trace").doesNotContain("\tat ");
    assertThat(nessie.hash("ingest")).isEqualTo(ingest);

    // the silent exit: the console's output went nowhere (a full disk); the run's log still ends with the line
    Cli.Result silent = Cli.runTo(env, Path.of("/dev/full"), "restate", "audit", "--run-id", "42");
    assertThat(silent.exitCode()).isEqualTo(1);
    assertThat(newestLog("restate-audit")).as("the line in the run's log")
        .contains("ERROR Tidemark - " + audit.errLines().get(0));

    List<Cli.Result> ran = recipes.run("a-failed-restatement-audit", Map.of());
    assertThat(ran.get(0).out()).as("the failed check, on the branch").contains("DuckDB recount");
    assertThat(ran.get(3).out()).as("the run again").contains("merged into ingest");
    assertThat(nessie.exists("restated-42")).isTrue();
    assertThat(ran.get(ran.size() - 1).out()).contains("published ").contains(" to main (");
    assertThat(nessie.hash("main")).isNotEqualTo(main);
    Restatement.Result restated = new Restatement(reference.pipeline().lakehouse(),
        Restatement.Options.defaults(reference.pipeline().config())
        .withRunId("42").withPrefix("troubleshooting-reference-")).run();
    assertThat(restated.merged()).as("the reference's restatement").isTrue();
    assertMainAsWithoutFailures();
  }

  /** A check that finds the raw stream behind: one line with the next step and the recipe, released by it. */
  @Test
  @Order(9)
  void aFailedCheckIsAFindingInOneLineReleasedByItsRecipe() throws IOException {
    lander.land(new Arrival(5, List.of(LandingFile.of("events", "more.jsonl",
        "{\"event_id\":500,\"company_id\":\"c1\",\"amount\":1.0,\"event_ts\":\"2026-01-01T02:00:00Z\"}\n"))));
    Cli.Result check = Cli.run(env, "check", "--branch", "ingest");
    assertThat(check.exitCode()).as("%s", check).isEqualTo(1);
    assertThat(check.errLines()).as("%s", check).singleElement().asString()
        .startsWith("tidemark: check failed on ingest: events: raw + rejected = ")
        .contains("(the raw stream has not read them all: tidemark stream raw)")
        .endsWith("see docs/troubleshooting.md#a-failed-check");
    assertThat(check.out()).contains("MISMATCH").contains("publish checks of ingest");

    List<Cli.Result> ran = recipes.run("a-failed-check", Map.of());
    assertThat(ran.get(ran.size() - 1).out()).contains("check: ok");
    assertMainAsWithoutFailures();
  }

  /** A command line that does not parse, or a bad option value: one line, exit 2, before any service is asked. */
  @Test
  @Order(10)
  void aCommandLineThatDoesNotParseIsOneLine() {
    Cli.Result r = Cli.run(env, "land");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).singleElement().asString()
        .startsWith("tidemark: missing required argument").endsWith("(see tidemark land --help)");
    assertThat(r.out()).isEmpty();
    Cli.Result scenario = Cli.run(env, "land", "--scenario", "nope");
    assertThat(scenario.exitCode()).as("%s", scenario).isEqualTo(2);
    assertThat(scenario.errLines()).singleElement().asString().startsWith("tidemark: --scenario nope: unknown");
  }

  /**
   * The example stream all's help gave, on a staging branch that does not exist: one line naming the setting and how to
   * make the branch, not the five libraries' lines it was; the recipe makes it and runs the streams there.
   */
  @Test
  @Order(11)
  void aBranchThatDoesNotExistIsOneLineNamingTheSetting() {
    Cli.Result r = Cli.run(env, "stream", "all", "--staging-branch", "dev");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(2);
    assertThat(r.errLines()).as("%s", r).singleElement().asString()
        .startsWith("tidemark: no branch or tag dev in Nessie at ")
        .contains("TIDEMARK_STAGING_BRANCH (--staging-branch) names it")
        .contains("make it with `tidemark bootstrap --staging-branch dev`");
    List<Cli.Result> ran = recipes.run("a-branch-that-does-not-exist", Map.of());
    assertThat(nessie.exists("dev")).isTrue();
    assertThat(ran.get(ran.size() - 1).out()).as("dev made from main").contains(nessie.hash("main").substring(0, 12));
  }

  // ---- helpers

  /** Main's tables equal those of a pipeline that took in the same files and met no failure. */
  private void assertMainAsWithoutFailures() {
    reference.assertMainAsHere(SeedTables.of(config));
  }

  /** The branch and the whole hash of the undo a failure printed ({@code tidemark sql "ASSIGN BRANCH ..."}). */
  private static List<String> undo(String printed) {
    Matcher m = ASSIGN.matcher(printed);
    assertThat(m.find()).as("an undo in %s", printed).isTrue();
    return List.of(m.group(1), m.group(2));
  }

  /** The newest log of a command ({@code restate-audit}). */
  private String newestLog(String command) throws IOException {
    try (var logs = Files.list(home.resolve("logs"))) {
      Path newest = logs.filter(p -> p.getFileName().toString().startsWith("tidemark-" + command + "-"))
          .max(java.util.Comparator.comparing(p -> p.getFileName().toString())).orElseThrow();
      return Files.readString(newest);
    }
  }

  /** `tidemark publish` refused by {@code check}: exit 1, one line naming it and its recipe, which the page has. */
  private Cli.Result refused(String check) {
    Cli.Result r = Cli.run(env, "publish");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    // (after the check it names, the line lists the others that failed: "(also failed: ...)")
    assertThat(r.errLines()).as("%s", r).singleElement().asString().matches("tidemark: publish refused by check "
        + check + "( \\(also failed: [a-z0-9, -]+\\))?: main unchanged, staged commit tagged rejected-[0-9a-f]{8}; see "
        + Pattern.quote(PublishRefused.recipe(check)));
    assertThat(r.err()).as("a finding has no stack trace").doesNotContain("\tat ");
    assertThat(r.out()).contains("release it: " + PublishRefused.recipe(check));
    assertThat(Docs.sections(PAGE)).containsKey(PublishRefused.recipe(check).replaceFirst(".*#", ""));
    return r;
  }

  private Cli.Result succeeds(String... args) {
    Cli.Result r = Cli.run(env, args);
    assertThat(r.exitCode()).as("tidemark %s: %s", String.join(" ", args), r).isZero();
    return r;
  }
}
