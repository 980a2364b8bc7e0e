package io.tidemark.restate;

import java.util.Optional;

/**
 * The tag: {@code restated-<run id>} at the run's merge commit on the staging branch, which the next run reads its
 * marks from.
 */
final class TagStage {
  private final RunContext ctx;

  TagStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() {
    RunState s = ctx.ledger.read();
    if (s.tagged().isPresent()) {
      return StageResult.already(Stage.TAG, ctx.runId(), ctx.ledger.tagName() + " at " + s.tagged().get());
    }
    if (s.merged().isEmpty()) {
      Optional<StageResult> skip = Skips.before(Stage.TAG, s, ctx.runId(), ctx.ledger::knownRuns);
      return skip.orElseGet(() -> StageResult.missing(Stage.TAG, ctx.runId(), Stage.MERGE));
    }
    ctx.refs.tag(ctx.ledger.tagName(), ctx.staging, s.merged().get());
    return StageResult.done(Stage.TAG, "tagged " + ctx.ledger.tagName() + " at " + s.merged().get() + "; Nessie UI: "
        + ctx.lakehouse.endpoints().nessieUi());
  }
}
