package io.tidemark.restate;

import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.CorrectionSet;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.stream.Provenance;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.StreamSpec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.projectnessie.model.Branch;

/**
 * The plan: reads the marks (the streams' watermarks, then the raw archives' snapshots at the head of the staging
 * branch),
 * works out the corrections from the tables as they are at that commit, cuts {@code restate-<run id>} there and
 * records the corrections on it ({@link PlannedCorrections}) and the plan in its mark commit.
 */
final class PlanStage {
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
    String pipeline = ctx.pipeline.identity();
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
    Map<String, Instant> watermarks = new LinkedHashMap<>();
    for (StreamDef stream : ctx.pipeline.streams()) {
      if (stream.kind() != StreamDef.Kind.RAW) {
        watermark(stream).ifPresent(w -> watermarks.put(stream.name(), w));
      }
    }
    String base = ctx.refs.branch(ctx.staging).getHash();
    PinnedTables atBase = PinnedTables.at(ctx.spark(), ctx.staging, base);
    Map<String, Long> snapshots = new LinkedHashMap<>();
    for (TableName raw : ctx.pipeline.rawTables()) {
      Long at = atBase.snapshot(raw);
      if (at != null) {
        snapshots.put(raw.toString(), at);
      }
    }
    Marks now = new Marks(snapshots, watermarks);
    // nothing arrived and no watermark moved since the last restatement: nothing to read
    CorrectionSet c = now.equals(previous) ? CorrectionSet.empty() : corrections(atBase, previous, now);
    String name = ctx.ledger.branchName(attempt);
    Plan plan = new Plan(ctx.runId(), name, attempt, null, base, Optional.empty(), previous, now,
        c.windows().size(), c.records().size(), c.changes().size());
    if (c.isEmpty() && !recordNothing) {
      return plan;
    }
    ctx.refs.createBranch(name, Branch.of(ctx.staging, base));
    if (!c.isEmpty()) {
      PinnedTables onBranch = PinnedTables.onBranch(ctx.spark(), name);
      long snapshot = PlannedCorrections.write(RunContext.table(onBranch, ctx.pipeline.shared().restatementPlan()),
          ctx.runId(), name, attempt, c, PlannedCorrections.shapes(atBase, ctx.pipeline),
          Provenance.ofRestatement(ctx.runId()));
      plan = new Plan(ctx.runId(), name, attempt, null, base, Optional.of(snapshot), previous, now,
          c.windows().size(), c.records().size(), c.changes().size());
    }
    plan = ctx.ledger.markPlan(plan);
    ctx.remember(plan, c);
    return plan;
  }

  private CorrectionSet corrections(PinnedTables at, Marks previous, Marks now) {
    return CorrectionEngines.between(ctx.spark(), ctx.pipeline, at, ctx.options.driverRows(), previous, now)
        .corrections();
  }

  /** From the stream's checkpoint, else from the provenance of its newest commit. */
  private Optional<Instant> watermark(StreamDef stream) {
    return Provenance.watermark(ctx.spark(), StreamSpec.of(stream, ctx.config));
  }
}
