package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.CrashHook;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restatement stage by stage through the real command line, {@code restate plan|write|audit|merge|tag --run-id
 * ID}, as Airflow's tasks run it: the write killed half way in a JVM of its own (its crash hook halts the JVM), the
 * other stages in this JVM ({@link Cli#inProcess}: each a new command on the suite's warm SparkSession, so a stage
 * keeps nothing in memory for the next; the Airflow test runs every stage as a spark-submit of its own). One run
 * goes through the steps below in order, each a test of its own: out of order, a stage fails naming the one to run
 * first; rerun, it changes nothing; a write killed half way and run again converges; a failed audit leaves the
 * staging branch alone and, once the branch is fixed, audit, merge and tag go on (the merge also by its former
 * name, publish); a merge after the staging branch moved recomputes; a run
 * with nothing to restate lets every later stage say so and succeed.
 */
@Steps
class RestateStagesIT extends StackTest {
  private static final String ID = "run1";
  private final NessieRest nessie = stack.nessie();
  private Pipeline p;
  private SeedTables t;
  private Map<String, String> env;
  private String prefix;
  private String branch;
  private String staging0;
  private Refs planned;
  private List<String> logOnBranch;

  RestateStagesIT() {
    super("stages_fx");
  }

  private record Refs(String staging, String branch) {}

  private Refs refs(String branch) {
    return new Refs(nessie.hash(stack.config().nessieRef()), nessie.exists(branch) ? nessie.hash(branch) : null);
  }

  @BeforeAll
  void pipelineWithSomethingToRestate(@TempDir Path checkpoints) {
    p = Pipeline.withLateChange(stack, "stages", checkpoints);
    t = SeedTables.of(p.config());
    env = p.env();
    prefix = TestStack.unique("stages") + "-";
    branch = prefix + "restate-" + ID;
    staging0 = nessie.hash(stack.config().nessieRef());
  }

  @Test
  @Order(1)
  void outOfOrderOrWithABadIdAStageFailsNamingWhatToDo() {
    Cli.Result r = Cli.run(env, "restate", "plan", "--run-id", "bad id", "--ref-prefix", prefix);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(2);
    assertThat(r.errLines()).as("%s", r).singleElement().asString().contains("--run-id", "'bad id'");

    r = run("write", ID);
    assertThat(r.exitCode()).as("write before plan: %s", r).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString()
        .contains("no restatement run run1 in Nessie", "a new run starts with `tidemark restate plan --run-id run1`")
        .doesNotContain("needs its plan first");
    assertThat(nessie.exists(branch)).isFalse();
  }

  @Test
  @Order(2)
  void planCutsTheBranchAndRecordsThePlan() throws Exception {
    Cli.Result r = run("plan", ID);
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).contains("planned: 2 window(s), ", " 1 dimension change(s)");
    assertThat(nessie.hash(stack.config().nessieRef())).as("plan leaves the staging branch alone").isEqualTo(staging0);
    planned = refs(branch);
    assertThat(planned.branch()).as("branch cut and the plan recorded on it").isNotNull();
    again("plan", ID, branch, planned);

    r = run("audit", ID);
    assertThat(r.exitCode()).as("audit before write: %s", r).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString().contains("tidemark restate write --run-id run1");
  }

  @Test
  @Order(3)
  void aWriteKilledHalfWayConvergesWhenRunAgain() throws Exception {
    // killed between the counts' commit and the dedup's: the branch is half written
    Map<String, String> crash = new HashMap<>(env);
    crash.put(CrashHook.VARIABLE, "restate:after-counts");
    Cli.Result r = Cli.run(crash, "restate", "write", "--run-id", ID, "--ref-prefix", prefix);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(137);
    assertThat(nessie.hash(branch)).as("the counts were committed").isNotEqualTo(planned.branch());
    assertThat(fx.strings("SELECT concat_ws('|', company_id, date_format(w_start, 'yyyy-MM-dd HH:mm:ss'), "
        + "CAST(n AS STRING)) FROM " + t.eventCounts().sqlAt(branch))).contains("c1|2026-01-01 00:00:00|6");
    assertThat(fx.strings("SELECT key FROM " + t.restatementLog().sqlAt(branch) + " WHERE run_id = 'run1'"))
        .as("no log rows yet").isEmpty();

    r = run("write", ID);
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).contains("unfinished write was dropped");
    again("write", ID, branch, refs(branch));
    logOnBranch = log(t.restatementLog().sqlAt(branch));
    assertThat(logOnBranch).as("each correction once, after the crash and the rerun")
        .doesNotHaveDuplicates()
        .contains("window_recount c1|2026-01-01 00:00:00 4 6", "window_insert c3|2026-01-01 00:05:00 1",
            "scd2_late_change c3@2026-01-01 01:00:00 Cog|platinum");
    assertThat(fx.strings("SELECT CAST(count(*) - count(DISTINCT event_id) AS STRING) FROM "
        + t.events().sqlAt(branch))).containsExactly("0");
    assertThat(Scd2Invariants.check(spark.table(t.companies().sqlAt(branch)),
        Optional.of(spark.table(t.companyChanges().sqlAt(branch))), Seed.COMPANIES)).isEmpty();
  }

  @Test
  @Order(4)
  void aFailedAuditKeepsTheStagingBranchAndGoesOnOnceTheBranchIsFixed() throws Exception {
    String c1 = " WHERE company_id = 'c1' AND w_start = TIMESTAMP '2026-01-01 00:00:00'";
    spark.sql("UPDATE " + t.eventCounts().sqlAt(branch) + " SET n = n + 100" + c1);
    Cli.Result r = run("audit", ID);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString()
        .contains("audit failed: windowed-counts: DuckDB recount from the raw archive",
            "window c1 2026-01-01T00:00:00Z holds n=106, DuckDB computes n=6",
            "@" + branch);
    assertThat(nessie.hash(stack.config().nessieRef())).as("the staging branch untouched").isEqualTo(staging0);
    assertThat(nessie.exists(branch)).isTrue();
    assertThat(fx.strings("SELECT check_name FROM " + t.auditChecks().sqlAt(branch) + " WHERE NOT passed"))
        .as("the failed check is recorded on the branch")
        .containsExactly("windowed-counts: DuckDB recount from the raw archive");
    // the merge by its former name, as a script or an older DAG run has it
    r = run("publish", ID);
    assertThat(r.exitCode()).as("merge after a failed audit: %s", r).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString().contains("failed", "docs/troubleshooting.md#a-failed-restatement-audit");
    assertThat(nessie.hash(stack.config().nessieRef())).isEqualTo(staging0);

    spark.sql("UPDATE " + t.eventCounts().sqlAt(branch) + " SET n = n - 100" + c1);
    StageResult audited = inProcess(ID).stage(Stage.AUDIT);
    assertThat(audited.outcome()).as("%s", audited).isEqualTo(StageResult.Outcome.DONE);
    assertThat(audited.lines()).noneMatch(l -> l.contains("FAIL "))
        .anyMatch(l -> l.contains("PASS windowed-counts: DuckDB recount from the raw archive"));
    again("audit", ID, branch, refs(branch));
  }

  @Test
  @Order(5)
  void aMergeAfterTheStagingBranchMovedRecomputesOnTheNewHead() throws Exception {
    // a stream commits a newly final window after the audit
    p.arrive(new Arrival(7, List.of(LandingFile.of(SeedScenarios.EVENTS, "more.jsonl",
        "{\"event_id\":900,\"company_id\":\"c5\",\"amount\":1.0,\"event_ts\":\"2026-01-01T00:40:00Z\"}\n"))));
    assertThat(fx.countRows(t.eventCounts())).contains("c1|2026-01-01 00:20:00|1");
    Cli.Result r = run("tag", ID);
    assertThat(r.exitCode()).as("tag before publish: %s", r).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString().contains("tidemark restate merge --run-id run1");
    StageResult merged = inProcess(ID).stage(Stage.MERGE);
    assertThat(merged.outcome()).as("%s", merged).isEqualTo(StageResult.Outcome.DONE);
    assertThat(merged.lines()).anyMatch(l -> l.contains("attempt 2: " + stack.config().nessieRef() + " had moved"));
    String branch2 = branch + "-2";
    assertThat(nessie.exists(branch)).as("the conflicting attempt's branch is dropped").isFalse();
    again("merge", ID, branch2, refs(branch2));

    r = run("tag", ID);
    assertThat(r.exitCode()).as("%s", r).isZero();
    String tag = prefix + "restated-" + ID;
    assertThat(nessie.hash(tag)).isEqualTo(nessie.hash(stack.config().nessieRef()));
    again("tag", ID, branch2, refs(branch2));
    for (String earlier : List.of("plan", "write", "audit")) {
      again(earlier, ID, branch2, refs(branch2));
    }
  }

  @Test
  @Order(6)
  void theStagingBranchHoldsTheCorrectionsOnceEach() throws Exception {
    // what the all-in-one run gives (RestatementIT): the corrections, once each, and the stream's windows
    List<Path> files = StreamFixture.download(p.lakehouse().storage(), p.config().landingBucket(), "events/", tmp);
    try (DuckOracle oracle = new DuckOracle(List.of(files))) {
      assertThat(fx.countRows(t.eventCounts())).as("finalized windows equal DuckDB over all events")
          .isEqualTo(oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5)));
    }
    assertThat(fx.countRows(t.eventCounts())).contains("c1|2026-01-01 00:00:00|6", "c3|2026-01-01 00:05:00|1",
        "c1|2026-01-01 00:20:00|1");
    assertThat(log(t.restatementLog().sql())).as("the published corrections: those the crashed-and-rerun write made")
        .isEqualTo(logOnBranch);
    assertThat(fx.historyRows(t.companies())).contains("c3|Cog|platinum|2026-01-01 01:00:00|2026-01-01 01:30:00|false");
    assertThat(Scd2Invariants.check(spark, t.companies(), Optional.of(t.companyChanges()), Seed.COMPANIES)).isEmpty();
    assertThat(fx.strings("SELECT concat_ws(' ', check_name, CAST(passed AS STRING)) FROM " + t.auditChecks().sql()
        + " WHERE run_id = 'run1'")).isNotEmpty().allMatch(s -> s.endsWith(" true"));
  }

  @Test
  @Order(7)
  void theNextRunFindsNothingAndEveryStageSaysSo() throws Exception {
    String staging1 = nessie.hash(stack.config().nessieRef());
    StageResult planned2 = inProcess("run2").stage(Stage.PLAN);
    assertThat(planned2.lines()).as("%s", planned2).first().isEqualTo("nothing to restate");
    Cli.Result r = run("write", "run2");
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).contains("nothing to restate for run run2");
    for (Stage later : List.of(Stage.AUDIT, Stage.MERGE, Stage.TAG)) {
      StageResult done = inProcess("run2").stage(later);
      assertThat(done.outcome()).as("%s", done).isEqualTo(StageResult.Outcome.NOTHING_TO_RESTATE);
      assertThat(done.lines()).anyMatch(l -> l.contains("nothing to restate for run run2"));
    }
    assertThat(nessie.hash(stack.config().nessieRef())).isEqualTo(staging1);
    assertThat(nessie.exists(prefix + "restated-run2")).isFalse();
    // nothing arrived since the published run: the plan reads no table's rows and runs no Spark job
    Cli.Result debug = Cli.inProcess(env, "restate", "plan", "--run-id", "run3", "--ref-prefix", prefix, "--debug");
    assertThat(debug.exitCode()).as("%s", debug).isZero();
    assertThat(debug.out()).contains("nothing to restate").containsPattern("work: 0 Spark job\\(s\\), \\d+ table load");
  }

  private Restatement inProcess(String id) {
    return new Restatement(p.lakehouse(), Restatement.Options.defaults(p.config()).withRunId(id).withPrefix(prefix));
  }

  private Cli.Result run(String stage, String id) {
    return Cli.inProcess(env, "restate", stage, "--run-id", id, "--ref-prefix", prefix);
  }

  private List<String> log(String table) {
    return fx.strings("SELECT concat_ws(' ', correction, key, old_value, new_value) AS r FROM " + table
        + " WHERE run_id = 'run1' ORDER BY r");
  }

  /**
   * A stage that is done, run again: it says so and changes neither the staging branch nor the branch. Through the command
   * line once (the tag), the other reruns through the stage code the command calls.
   */
  private void again(String stage, String id, String branch, Refs before) throws Exception {
    if (stage.equals("tag")) {
      Cli.Result r = run(stage, id);
      assertThat(r.exitCode()).as("%s again: %s", stage, r).isZero();
      assertThat(r.out()).as("%s again", stage).contains("already done");
    } else {
      StageResult r = inProcess(id).stage(Stage.named(stage));
      assertThat(r.outcome()).as("%s again: %s", stage, r).isEqualTo(StageResult.Outcome.ALREADY_DONE);
      assertThat(r.lines()).as("%s again", stage).anyMatch(l -> l.contains("already done"));
    }
    assertThat(refs(branch)).as("%s again changes nothing", stage).isEqualTo(before);
  }
}
