package io.tidemark.restate;

import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.CorrectionSet;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.StreamKind;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.WindowedCounts;
import java.time.Instant;
import java.util.Optional;
import org.projectnessie.model.Branch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plan: reads the marks (the streams' watermarks, then the raw archives' snapshots at the head of the staging
 * branch),
 * works out the corrections from the tables as they are at that commit, cuts {@code restate-<run id>} there and
 * records the corrections on it ({@link PlannedCorrections}) and the plan in its mark commit.
 */
final class PlanStage {
  private static final Logger LOG = LoggerFactory.getLogger(PlanStage.class);

  private final RunContext ctx;

  PlanStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() {
    RunState s = ctx.ledger.read();
    if (s.merged().isPresent()) {
      return StageResult.already(Stage.PLAN, ctx.runId(), "merged as " + s.merged().get());
    }
    if (s.plan().isPresent()) {
      return StageResult.already(Stage.PLAN, ctx.runId(), s.plan().get().summary() + " on branch "
          + s.plan().get().branch());
    }
    s.branch().ifPresent(b -> ctx.refs.deleteBranch(b.getName())); // cut, but the plan was never recorded: cut again
    Plan plan = attempt(1, previousMarks(), true);
    return StageResult.done(Stage.PLAN, plan.summary(), "branch " + plan.branch() + " cut from " + ctx.staging + " at "
        + plan.base() + ", plan recorded at " + plan.hash() + " (marks: " + plan.now().properties() + ")");
  }

  /**
   * The marks of the newest merged restatement of this pipeline: its tag's commit. Another pipeline's tag in the
   * same catalog says nothing about this one's raw tables (a tag from before the key was written is taken as this
   * pipeline's).
   */
  Marks previousMarks() {
    String pipeline = ctx.tables.rawEvents().toString();
    return ctx.refs.newestTagProperties(ctx.options.refPrefix() + RefNames.RESTATED,
            props -> pipeline.equals(props.getOrDefault(CommitKeys.PIPELINE, pipeline)))
        .map(Marks::of).orElse(Marks.none());
  }

  /**
   * Plans attempt {@code attempt}: reads the marks and works the corrections out at the head of the staging branch,
   * then cuts the attempt's branch there and records them. With nothing to correct and {@code recordNothing} false, nothing is
   * cut or recorded (the plan returned has no hash).
   */
  Plan attempt(int attempt, Marks previous, boolean recordNothing) {
    // the watermarks before the commit of the staging branch: windows final by them are in the tables at that commit
    Optional<Instant> counts = watermark(ctx.tables.eventCounts(), WindowedCounts.NAME);
    Optional<Instant> dedup = watermark(ctx.tables.events(), Dedup.NAME);
    Optional<Instant> scd2 = watermark(ctx.tables.companies(), Scd2Upsert.NAME);
    String base = ctx.refs.branch(ctx.staging).getHash();
    PinnedTables atBase = PinnedTables.at(ctx.spark(), ctx.staging, base);
    Marks now = new Marks(Optional.ofNullable(atBase.snapshot(ctx.tables.rawEvents())),
        Optional.ofNullable(atBase.snapshot(ctx.tables.rawCompanyChanges())), counts, dedup, scd2);
    // nothing arrived and no watermark moved since the last restatement: nothing to read
    CorrectionSet c = now.equals(previous) ? CorrectionSet.empty() : corrections(atBase, previous, now);
    String name = ctx.ledger.branchName(attempt);
    Plan plan = new Plan(ctx.runId(), name, attempt, null, base, Optional.empty(), previous, now,
        c.windows().size(), c.events().size(), c.changes().size());
    if (c.isEmpty() && !recordNothing) {
      return plan;
    }
    ctx.refs.createBranch(name, Branch.of(ctx.staging, base));
    if (!c.isEmpty()) {
      PinnedTables onBranch = PinnedTables.onBranch(ctx.spark(), name);
      long snapshot = PlannedCorrections.write(RunContext.table(onBranch, ctx.tables.restatementPlan()), ctx.runId(),
          name, attempt, c, PlannedCorrections.promoted(atBase, ctx.tables), Provenance.ofRestatement(ctx.runId()));
      plan = new Plan(ctx.runId(), name, attempt, null, base, Optional.of(snapshot), previous, now,
          c.windows().size(), c.events().size(), c.changes().size());
    }
    plan = ctx.ledger.markPlan(plan);
    ctx.remember(plan, c);
    return plan;
  }

  /** On the driver while the rows to read stay within the budget; past it, in Spark. */
  private CorrectionSet corrections(PinnedTables at, Marks previous, Marks now) {
    try {
      return new DriverCorrections(at, ctx.tables, ctx.config.countsWindow(), ctx.options.driverRows())
          .between(previous, now);
    } catch (DriverReads.TooManyRows e) {
      LOG.info("{}: the plan works in Spark", e.getMessage());
      return new SparkCorrections(ctx.spark(), ctx.tables, at, ctx.config.countsWindow()).between(previous, now);
    }
  }

  /** From the stream's checkpoint, else from the provenance of its newest commit. */
  private Optional<Instant> watermark(TableName table, String stream) {
    return Provenance.watermark(ctx.spark(), StreamSpec.of(StreamKind.named(stream), ctx.config).withTable(table));
  }
}
