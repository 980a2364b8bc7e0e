package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import java.util.List;
import java.util.Optional;

/**
 * The publish: merges the audited branch into main as one commit that says what it did ({@link PublishRetry}
 * when main moved meanwhile). Refuses a branch whose audit failed or that changed after its audit.
 */
final class PublishStage {
  private final RunContext ctx;

  PublishStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() throws Exception {
    RunState s = ctx.ledger.read();
    Optional<StageResult> skip = Skips.before(Stage.PUBLISH, s, ctx.runId());
    if (skip.isPresent()) {
      return skip.get();
    }
    Plan plan = s.plan().get();
    int checks;
    if (plan.attempt() > 1 && !s.auditPassedAtHead()) {
      // a publish stopped while it retried: it goes on where it stopped
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
      return StageResult.missing(Stage.PUBLISH, ctx.runId(), Stage.WRITE);
    } else if (!s.auditPassedAtHead()) {
      boolean failedAtHead = s.audit().isPresent() && !s.audit().get().passed()
          && s.branch().get().getHash().equals(s.audit().get().hash());
      return failedAtHead ? StageResult.failed(Stage.PUBLISH, List.of(), "the audit of branch " + plan.branch()
          + " failed (" + s.audit().get().failure() + "): fix the branch, then run `tidemark restate audit --run-id "
          + ctx.runId() + "` again") : StageResult.missing(Stage.PUBLISH, ctx.runId(), Stage.AUDIT);
    } else {
      checks = s.audit().get().checks();
    }
    return new PublishRetry(ctx).publish(plan, checks);
  }
}
