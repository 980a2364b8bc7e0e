package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import java.util.List;
import java.util.Optional;

/**
 * The merge: merges the audited branch into the staging branch as one commit that says what it did
 * ({@link MergeRetry} when the staging branch moved meanwhile). Refuses a branch whose audit failed or that changed
 * after its audit.
 */
final class MergeStage {
  private final RunContext ctx;

  MergeStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() throws Exception {
    RunState s = ctx.ledger.read();
    Optional<StageResult> skip = Skips.before(Stage.MERGE, s, ctx.runId(), ctx.ledger::knownRuns);
    if (skip.isPresent()) {
      return skip.get();
    }
    Plan plan = s.plan().get();
    int checks;
    if (plan.attempt() > 1 && !s.auditPassedAtHead()) {
      // a merge stopped while it retried: it goes on where it stopped
      if (s.written().isEmpty()) {
        new WriteStage(ctx).apply(plan);
      }
      AuditStage audit = new AuditStage(ctx);
      List<AuditCheck> audited = audit.check(plan, ctx.refs.branch(plan.branch()).getHash());
      if (audited.stream().anyMatch(c -> !c.passed())) {
        return audit.result(audited, plan);
      }
      checks = audited.size();
    } else if (s.written().isEmpty()) {
      return StageResult.missing(Stage.MERGE, ctx.runId(), Stage.WRITE);
    } else if (!s.auditPassedAtHead()) {
      boolean failedAtHead = s.audit().isPresent() && !s.audit().get().passed()
          && s.branch().get().getHash().equals(s.audit().get().hash());
      return failedAtHead ? StageResult.failed(Stage.MERGE, List.of(), "the audit of branch " + plan.branch()
          + " failed (" + s.audit().get().failure() + "): see docs/troubleshooting.md#a-failed-restatement-audit")
          : StageResult.missing(Stage.MERGE, ctx.runId(), Stage.AUDIT);
    } else {
      checks = s.audit().get().checks();
    }
    return new MergeRetry(ctx).merge(plan, checks);
  }
}
