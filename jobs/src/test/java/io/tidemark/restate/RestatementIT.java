package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restatement all in one ({@code tidemark restate} without a stage), after its plan worked out on the driver and
 * in Spark agrees. A failed audit, a merge after the staging branch moved and each stage's rerun are covered stage by stage in
 * RestateStagesIT, on the same stage code.
 */
@Tag("quick")
@Steps
class RestatementIT extends StackTest {
  RestatementIT() {
    super("restate_fx");
  }

  private Restatement.Options options(String name) {
    return Restatement.Options.defaults(stack.config()).withPrefix(TestStack.unique(name) + "-");
  }

  private Pipeline p;

  @BeforeAll
  void pipelineWithSomethingToRestate(@TempDir Path checkpoints) {
    p = Pipeline.withLateChange(stack, "repair", checkpoints);
  }

  /**
   * A plan works on the driver while its input rows stay within the budget, in Spark past it: both plan the same
   * corrections (the plan table on each branch holds the same rows), and plans leave the staging branch alone.
   */
  @Test
  @Order(1)
  void theDriverAndSparkPlanTheSameCorrections() throws Exception {
    String prefix = TestStack.unique("plans") + "-";
    String staging = stack.nessie().hash(stack.config().nessieRef());
    List<List<String>> plans = new java.util.ArrayList<>();
    for (long driverRows : new long[] {Restatement.DRIVER_ROWS, 0}) {
      String id = "rows" + driverRows;
      StageResult planned = new Restatement(p.lakehouse(), Restatement.Options.defaults(p.config()).withRunId(id)
          .withPrefix(prefix).withDriverRows(driverRows)).stage(Stage.PLAN);
      assertThat(planned.outcome()).as("%s", planned).isEqualTo(StageResult.Outcome.DONE);
      plans.add(fx.strings("SELECT concat_ws(' ', kind, target, key, old_value, new_value, CAST(old_rows AS STRING)) "
          + "AS r FROM " + SeedTables.of(p.config()).restatementPlan().sqlAt(prefix + "restate-" + id)
          + " WHERE run_id = '" + id + "' ORDER BY r"));
    }
    assertThat(plans.get(0)).as("planned on the driver").hasSizeGreaterThanOrEqualTo(3)
        .anyMatch(r -> r.startsWith("window windowed-counts "
            + "{\"company_id\":\"c1\",\"w_start\":\"2026-01-01T00:00:00Z\"} {\"n\":\"4\"} {\"n\":\"6\"}"))
        .anyMatch(r -> r.startsWith("change companies {\"company_id\":\"c3\",")
            && r.contains("\"name\":\"Cog\",\"tier\":\"platinum\""));
    assertThat(plans.get(1)).as("planned in Spark").isEqualTo(plans.get(0));
    assertThat(stack.nessie().hash(stack.config().nessieRef())).as("plans leave the staging branch alone")
        .isEqualTo(staging);
  }

  @Test
  @Order(2)
  void seedIsRepairedPublishedAndTaggedThenNothingToDo() throws Exception {
    var t = SeedTables.of(p.config());
    assertThat(fx.countRows(t.eventCounts())).as("what the stream wrote")
        .contains("c1|2026-01-01 00:00:00|4").doesNotContain("c1|2026-01-01 00:00:00|6");
    assertThat(fx.historyRows(t.companies())).as("the stream dropped c3's change: a day and more late")
        .noneMatch(r -> r.startsWith("c3|Cog|platinum|2026-01-01 01:00:00"));

    Restatement.Result r = new Restatement(p.lakehouse(), options("repair")).run();
    System.out.println("restatement: " + r.marks() + " windows " + r.windows() + " records " + r.records() + " changes "
        + r.changes() + " checks " + r.checks());
    assertThat(r.merged()).as("%s", r.checks()).isTrue();
    assertThat(r.checks()).allMatch(AuditCheck::passed).extracting(AuditCheck::name)
        .contains("windowed-counts: DuckDB recount from the raw archive", "companies: SCD2 invariants");
    assertThat(stack.nessie().exists(r.tag())).isTrue();
    assertThat(stack.nessie().hash(r.tag())).isEqualTo(stack.nessie().hash(stack.config().nessieRef()));

    List<Path> files = StreamFixture.download(p.lakehouse().storage(), p.config().landingBucket(), "events/", tmp);
    try (DuckOracle oracle = new DuckOracle(List.of(files))) {
      assertThat(fx.countRows(t.eventCounts())).as("finalized windows equal DuckDB over all events")
          .isEqualTo(oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5)));
    }
    assertThat(fx.countRows(t.eventCounts())).contains("c1|2026-01-01 00:00:00|6", "c3|2026-01-01 00:05:00|1");
    assertThat(fx.strings("SELECT CAST(count(*) - count(DISTINCT event_id) AS STRING) FROM " + t.events().sql()))
        .containsExactly("0");
    assertThat(fx.historyRows(t.companies())).as("the late change in its place")
        .contains("c3|Cog|platinum|2026-01-01 01:00:00|2026-01-01 01:30:00|false");
    assertThat(Scd2Invariants.check(spark, t.companies(), Optional.of(t.companyChanges()), Seed.COMPANIES)).isEmpty();
    assertThat(fx.strings("SELECT concat_ws(' ', correction, key, old_value, new_value) FROM "
        + t.restatementLog().sql() + " WHERE run_id = '" + r.runId() + "' ORDER BY 1"))
        .contains("window_recount c1|2026-01-01 00:00:00 4 6", "window_insert c3|2026-01-01 00:05:00 1",
            "scd2_late_change c3@2026-01-01 01:00:00 Cog|platinum");
    assertThat(fx.strings("SELECT CAST(count(*) AS STRING) FROM " + t.auditChecks().sql() + " WHERE run_id = '"
        + r.runId() + "' AND passed")).containsExactly(Integer.toString(r.checks().size()));

    String head = stack.nessie().hash(stack.config().nessieRef());
    Restatement.Result again = new Restatement(p.lakehouse(), options("repair").withPrefix(
        r.tag().substring(0, r.tag().indexOf(RefNames.RESTATED)))).run();
    assertThat(again.nothingToDo()).as("second run").isTrue();
    assertThat(stack.nessie().hash(stack.config().nessieRef())).as("no commit on the staging branch").isEqualTo(head);
  }
}
