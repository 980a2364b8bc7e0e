package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import io.tidemark.core.CommitKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Merges an audited attempt into the staging branch; when streams committed to a table the attempt corrected
 * meanwhile, Nessie refuses the merge (never forced): the attempt's branch is dropped and the next attempt planned on
 * the new head of the staging branch ({@code restate-<run id>-2}, ...), written, audited and merged, up to the run's
 * attempts.
 */
final class MergeRetry {
  private final RunContext ctx;

  MergeRetry(RunContext ctx) {
    this.ctx = ctx;
  }

  StageResult merge(Plan audited, int checks) throws Exception {
    Plan plan = audited;
    int passed = checks;
    for (;;) {
      Optional<String> merged = ctx.refs.merge(ctx.refs.branch(plan.branch()), ctx.staging, message(plan, passed),
          RunLedger.AUTHOR, properties(plan, passed));
      if (merged.isPresent()) {
        return StageResult.done(Stage.MERGE, "merged into " + ctx.staging + " (" + merged.get() + ")"
            + (plan.attempt() > 1 ? " from " + plan.branch() + ", attempt " + plan.attempt() + ": " + ctx.staging
            + " had moved" : ""));
      }
      if (plan.attempt() >= ctx.options.maxAttempts()) {
        throw new RestatementException("the staging branch " + ctx.staging + " kept changing under the restatement "
            + "(the streams committed to the tables it corrects): gave up after " + ctx.options.maxAttempts()
            + " attempts; run it again when the streams are quieter, or with a higher --max-attempts");
      }
      ctx.refs.deleteBranch(plan.branch());
      plan = new PlanStage(ctx).attempt(plan.attempt() + 1, plan.previous(), true);
      if (plan.nothingToDo()) {
        return StageResult.nothingToRestate(Stage.MERGE, ctx.runId());
      }
      new WriteStage(ctx).apply(plan);
      AuditStage audit = new AuditStage(ctx);
      List<AuditCheck> result = audit.check(plan, ctx.refs.branch(plan.branch()).getHash());
      if (result.stream().anyMatch(c -> !c.passed())) {
        return audit.result(result, plan);
      }
      passed = result.size();
    }
  }

  private String message(Plan plan, int checks) {
    return "restatement " + ctx.runId() + ": " + plan.windows() + " window(s), " + plan.records() + " record(s), "
        + plan.changes() + " dimension change(s) corrected; audit passed (" + checks + " checks)";
  }

  private Map<String, String> properties(Plan plan, int checks) {
    Map<String, String> props = new LinkedHashMap<>(plan.now().properties());
    props.put(CommitKeys.RUN_ID, ctx.runId());
    props.put(CommitKeys.BRANCH, plan.branch());
    props.put(CommitKeys.WINDOWS_CORRECTED, Integer.toString(plan.windows()));
    props.put(CommitKeys.RECORDS_CORRECTED, Long.toString(plan.records()));
    props.put(CommitKeys.CHANGES_APPLIED, Long.toString(plan.changes()));
    props.put(CommitKeys.AUDIT, CommitKeys.PASSED);
    props.put(CommitKeys.AUDIT_CHECKS, Integer.toString(checks));
    props.put(CommitKeys.STAGE, Stage.MERGE.label());
    props.put(CommitKeys.PIPELINE, ctx.pipeline.identity());
    return props;
  }
}
