package io.tidemark.restate;

import io.tidemark.core.AuditRecords;
import io.tidemark.audit.AuditCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The audit: checks the written branch and records the verdict on it; a failed audit leaves the staging branch alone.
 */
final class AuditStage {
  private final RunContext ctx;

  AuditStage(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult run() throws Exception {
    RunState s = ctx.ledger.read();
    Optional<StageResult> skip = Skips.before(Stage.AUDIT, s, ctx.runId(), ctx.ledger::knownRuns);
    if (skip.isPresent()) {
      return skip.get();
    }
    Plan plan = s.plan().get();
    if (s.written().isEmpty()) {
      return StageResult.missing(Stage.AUDIT, ctx.runId(), Stage.WRITE);
    }
    if (s.auditPassedAtHead()) {
      return StageResult.already(Stage.AUDIT, ctx.runId(), s.audit().get().checks() + " checks passed on "
          + plan.branch());
    }
    return result(check(plan, s.branch().get().getHash()), plan);
  }

  /** Audits the plan's branch at commit {@code head} and marks the verdict on it. */
  List<AuditCheck> check(Plan plan, String head) throws Exception {
    List<AuditCheck> checks = new BranchAudit(ctx).audit(plan, ctx.corrections(plan), head);
    ctx.ledger.markAudited(plan, checks);
    ctx.lastChecks = checks;
    return checks;
  }

  StageResult result(List<AuditCheck> checks, Plan plan) {
    List<String> lines = new ArrayList<>(List.of("audit of branch " + plan.branch() + ":"));
    checks.forEach(c -> lines.add("  " + c));
    Optional<AuditCheck> failed = checks.stream().filter(c -> !c.passed()).findFirst();
    return failed.isEmpty() ? StageResult.done(Stage.AUDIT, lines)
        : StageResult.failed(Stage.AUDIT, lines, failure(failed.get(), plan.branch()));
  }

  /** One line: the check that failed, and the SQL to look at the branch with. */
  String failure(AuditCheck failed, String branch) {
    return "audit failed: " + failed.name() + " on " + failed.table() + " (" + failed.detail() + "); " + ctx.staging
        + " is untouched; look at branch " + branch + ": tidemark sql \"SELECT * FROM " + ctx.pipeline.shared().auditChecks()
        + "@" + branch + " WHERE " + AuditRecords.RUN_ID + " = '" + ctx.runId() + "' AND NOT " + AuditRecords.PASSED
        + "\"; to release it see docs/troubleshooting.md#a-failed-restatement-audit";
  }
}
