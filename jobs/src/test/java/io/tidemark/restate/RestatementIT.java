package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.land.Arrival;
import io.tidemark.land.Dataset;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RestatementIT extends StackTest {
  RestatementIT() {
    super("restate_fx");
  }

  /** The seed's arrivals, then a change two days late for c3, then one more change that moves the watermark. */
  private Pipeline seeded(String name) {
    Pipeline p = new Pipeline(stack, name, tmp.resolve("cp-" + name));
    for (Arrival a : SeedScenarios.ALL.arrivals()) {
      p.arrive(a);
    }
    p.arrive(new Arrival(5, List.of(LandingFile.of(Dataset.COMPANIES, "later.jsonl",
        "{\"company_id\":\"c9\",\"name\":\"Nine\",\"tier\":\"gold\",\"change_ts\":\"2026-01-03T00:00:00Z\"}\n"))));
    p.arrive(new Arrival(6, List.of(LandingFile.of(Dataset.COMPANIES, "late.jsonl",
        "{\"company_id\":\"c3\",\"name\":\"Cog\",\"tier\":\"platinum\",\"change_ts\":\"2026-01-01T01:00:00Z\"}\n"))));
    return p;
  }

  private Restatement.Options options(String name) {
    return Restatement.Options.defaults(stack.config()).withPrefix(TestStack.unique(name) + "-")
        .withHooks(b -> { }, b -> { });
  }

  @Test
  void seedIsRepairedPublishedAndTaggedThenNothingToDo() throws Exception {
    Pipeline p = seeded("repair");
    var t = p.config().tables();
    assertThat(fx.countRows(t.eventCounts())).as("what the stream wrote")
        .contains("c1|2026-01-01 00:00:00|4").doesNotContain("c1|2026-01-01 00:00:00|6");
    assertThat(fx.historyRows(t.companies())).as("the stream dropped c3's change: a day and more late")
        .noneMatch(r -> r.startsWith("c3|Cog|platinum|2026-01-01 01:00:00"));

    Restatement.Result r = new Restatement(p.lakehouse(), options("repair")).run();
    System.out.println("restatement: " + r.marks() + " windows " + r.windows() + " events " + r.events() + " changes "
        + r.companyChanges() + " checks " + r.checks());
    assertThat(r.published()).as("%s", r.checks()).isTrue();
    assertThat(r.checks()).allMatch(AuditCheck::passed).extracting(AuditCheck::name)
        .contains("counts: DuckDB recount from the raw archive", "companies: SCD2 invariants");
    assertThat(stack.nessie().exists(r.tag())).isTrue();
    assertThat(stack.nessie().hash(r.tag())).isEqualTo(stack.nessie().hash("main"));

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
    assertThat(Scd2Invariants.check(spark, t.companies(), Optional.of(t.companyChanges()))).isEmpty();
    assertThat(fx.strings("SELECT concat_ws(' ', correction, key, old_value, new_value) FROM "
        + t.restatementLog().sql() + " WHERE run_id = '" + r.runId() + "' ORDER BY 1"))
        .contains("window_recount c1|2026-01-01 00:00:00 4 6", "window_insert c3|2026-01-01 00:05:00 1",
            "scd2_late_change c3@2026-01-01 01:00:00 Cog|platinum");
    assertThat(fx.strings("SELECT CAST(count(*) AS STRING) FROM " + t.auditChecks().sql() + " WHERE run_id = '"
        + r.runId() + "' AND passed")).containsExactly(Integer.toString(r.checks().size()));

    String head = stack.nessie().hash("main");
    Restatement.Result again = new Restatement(p.lakehouse(), options("repair").withPrefix(
        r.tag().substring(0, r.tag().indexOf(Restatement.TAG)))).run();
    assertThat(again.nothingToDo()).as("second run").isTrue();
    assertThat(stack.nessie().hash("main")).as("no commit on main").isEqualTo(head);
  }

  /** A bad correction injected on the branch: the audit catches it, main stays as it was, the branch stays. */
  @Test
  void failingAuditLeavesMainAloneAndKeepsTheBranch() throws Exception {
    Pipeline p = seeded("badaudit");
    var t = p.config().tables();
    String head = stack.nessie().hash("main");
    List<String> countsBefore = fx.countRows(t.eventCounts());
    Restatement.Result r = new Restatement(p.lakehouse(), options("badaudit").withHooks(
        branch -> spark.sql("UPDATE " + t.eventCounts().sqlAt(branch) + " SET n = n + 100 WHERE company_id = 'c1' "
            + "AND w_start = TIMESTAMP '2026-01-01 00:00:00'"), branch -> { })).run();
    assertThat(r.published()).isFalse();
    assertThat(r.checks()).filteredOn(c -> !c.passed()).extracting(AuditCheck::name)
        .containsExactly("counts: DuckDB recount from the raw archive");
    assertThat(r.checks()).filteredOn(c -> !c.passed()).first().extracting(AuditCheck::detail).asString()
        .contains("c1|2026-01-01 00:00:00 has n=106, DuckDB counts 6");
    assertThat(stack.nessie().hash("main")).as("main untouched").isEqualTo(head);
    assertThat(fx.countRows(t.eventCounts())).isEqualTo(countsBefore);
    assertThat(stack.nessie().exists(r.branch())).as("the branch stays for inspection").isTrue();
    assertThat(fx.strings("SELECT check_name FROM " + t.auditChecks().sqlAt(r.branch()) + " WHERE NOT passed"))
        .containsExactly("counts: DuckDB recount from the raw archive");
  }

  /**
   * The counts stream commits to main while the restatement is about to publish: Nessie refuses the merge, the
   * restatement recomputes on the new head and publishes; main has the stream's windows and the corrections.
   */
  @Test
  void aStreamCommitDuringTheRestatementLosesNothing() throws Exception {
    Pipeline p = seeded("concurrent");
    var t = p.config().tables();
    Arrival more = new Arrival(7, List.of(LandingFile.of(Dataset.EVENTS, "more.jsonl",
        "{\"event_id\":900,\"company_id\":\"c5\",\"amount\":1.0,\"event_ts\":\"2026-01-01T00:40:00Z\"}\n")));
    List<String> streamWrote = new ArrayList<>();
    Restatement.Result r = new Restatement(p.lakehouse(), options("concurrent").withHooks(b -> { }, branch -> {
      p.arrive(more);
      streamWrote.addAll(fx.countRows(t.eventCounts()));
    })).run();
    assertThat(streamWrote).as("the stream committed a newly final window to main meanwhile")
        .contains("c1|2026-01-01 00:20:00|1");
    assertThat(r.published()).isTrue();
    assertThat(r.attempts()).as("the first merge conflicted").isEqualTo(2);
    assertThat(fx.countRows(t.eventCounts())).as("nothing lost on either side")
        .contains("c1|2026-01-01 00:20:00|1", "c1|2026-01-01 00:00:00|6", "c3|2026-01-01 00:05:00|1");
    assertThat(stack.nessie().exists(r.branch())).isTrue();
  }
}
