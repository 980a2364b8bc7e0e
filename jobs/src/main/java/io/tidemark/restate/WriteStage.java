package io.tidemark.restate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The write: the plan's corrections and their restatement-log rows onto the branch. A write that did not finish
 * is dropped (the branch reset to the plan's commit) and done again.
 */
final class WriteStage {
  private final RunContext ctx;

  WriteStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() {
    RunState s = ctx.ledger.read();
    Optional<StageResult> skip = Skips.before(Stage.WRITE, s, ctx.runId(), ctx.ledger::knownRuns);
    if (skip.isPresent()) {
      return skip.get();
    }
    Plan plan = s.plan().get();
    if (s.written().isPresent()) {
      return StageResult.already(Stage.WRITE, ctx.runId(), "written on " + plan.branch());
    }
    List<String> lines = new ArrayList<>();
    if (!s.branch().get().getHash().equals(plan.hash())) {
      ctx.refs.reset(plan.branch(), plan.hash());
      lines.add("an unfinished write was dropped: branch " + plan.branch() + " reset to the plan's commit");
    }
    apply(plan);
    lines.add("written on branch " + plan.branch() + ": " + plan.windows() + " window(s), " + plan.records()
        + " record(s), " + plan.changes() + " dimension change(s) corrected");
    return StageResult.done(Stage.WRITE, lines);
  }

  /** Writes the plan's corrections on its branch (at the plan's commit) and marks the write done. */
  void apply(Plan plan) {
    new CorrectionWriter(PinnedTables.onBranch(ctx.spark(), plan.branch()), ctx.pipeline, ctx.runId(), plan.branch(),
        ctx.crash).write(ctx.corrections(plan));
    ctx.ledger.markWritten(plan);
  }
}
