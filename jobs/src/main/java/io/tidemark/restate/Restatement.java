package io.tidemark.restate;

import io.tidemark.CrashPoints;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.ConfigException;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.lakehouse.Lakehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Repairs what the streams' watermarks dropped, so that nothing that arrived is lost: write-audit-merge on a
 * Nessie branch, in five stages ({@link Stage}) that can run one by one (each in its own process, e.g. an Airflow
 * task) or all in one go ({@link #run()}):
 * <ol>
 *   <li>plan ({@link PlanStage}): reads the marks (raw archives' snapshots, streams' watermarks), works out the
 *       corrections at the head of the staging branch, cuts {@code restate-<run id>} there and records them on it;</li>
 *   <li>write ({@link WriteStage}): the planned corrections, and one restatement-log row per correction;</li>
 *   <li>audit ({@link AuditStage}): checks the branch against the plan; a failed audit leaves the staging branch
 *       alone and the branch in place;</li>
 *   <li>merge ({@link MergeStage}): merges the branch into the staging branch as one commit that says what it did,
 *       planning again on the new head when the staging branch moved ({@link MergeRetry}); {@code tidemark publish}
 *       takes it to main with the rest of what is staged;</li>
 *   <li>tag ({@link TagStage}): {@code restated-<run id>} at the merge commit.</li>
 * </ol>
 * Each stage finds its state in Nessie alone ({@link RunLedger}), does nothing when it is done, refuses when the
 * stage before it has not run, and works from what the plan recorded, so a stage run later does the same.
 */
public final class Restatement {
  /** Input rows a plan reads on the driver at most; past it the plan works in Spark. */
  public static final long DRIVER_ROWS = 2_000_000;

  /**
   * How a run goes. {@code generatedId}: the id was made for this run, so nothing in Nessie has it yet.
   * {@code refPrefix} keeps runs of separate setups (tests, benchmarks) apart in one Nessie;
   * {@code driverRows}: input rows the plan reads on the driver before it hands the work to Spark.
   */
  public record Options(String runId, boolean generatedId, int maxAttempts, Path workRoot, String refPrefix,
                        long driverRows) {
    public static Options defaults(TidemarkConfig config) {
      return new Options(RunId.generate(), true, 3, config.home().resolve("restate"), "", DRIVER_ROWS);
    }

    /** Where the audit keeps its copies of raw files. */
    public Path workDir() {
      return workRoot.resolve(runId);
    }

    public Options withRunId(String id) {
      return new Options(RunId.check(id), false, maxAttempts, workRoot, refPrefix, driverRows);
    }

    public Options withMaxAttempts(int n) {
      if (n < 1) {
        throw new ConfigException("--max-attempts: must be at least 1, not " + n);
      }
      return new Options(runId, generatedId, n, workRoot, refPrefix, driverRows);
    }

    public Options withPrefix(String prefix) {
      return new Options(runId, generatedId, maxAttempts, workRoot, RunId.checkPrefix(prefix), driverRows);
    }

    public Options withDriverRows(long n) {
      if (n < 0) {
        throw new ConfigException("--driver-rows: must be at least 0, not " + n);
      }
      return new Options(runId, generatedId, maxAttempts, workRoot, refPrefix, n);
    }
  }

  /** What a run did. {@code merged} false with no corrections means there was nothing to restate. */
  public record Result(String runId, String branch, boolean merged, String tag, int attempts,
                       List<WindowFix> windows, long records, long changes, List<AuditCheck> checks,
                       String stagingHash, Map<String, String> marks) {
    static Result nothingToDo(Plan plan, String stagingHash) {
      return new Result(plan.runId(), plan.branch(), false, null, plan.attempt(), List.of(), 0, 0, List.of(),
          stagingHash, plan.now().properties());
    }

    static Result auditFailed(Plan plan, CorrectionSet c, List<AuditCheck> checks, String stagingHash) {
      return new Result(plan.runId(), plan.branch(), false, null, plan.attempt(), c.windows(), c.records().size(),
          c.changes().size(), checks, stagingHash, plan.now().properties());
    }

    static Result merged(Plan plan, CorrectionSet c, List<AuditCheck> checks, String mergeHash, String tag) {
      return new Result(plan.runId(), plan.branch(), true, tag, plan.attempt(), c.windows(), c.records().size(),
          c.changes().size(), checks, mergeHash, plan.now().properties());
    }

    public boolean nothingToDo() {
      return windows.isEmpty() && records == 0 && changes == 0;
    }
  }

  private final Lakehouse lakehouse;
  private final Options options;
  private final CrashPoints crash;

  public Restatement(Lakehouse lakehouse, Options options) {
    this(lakehouse, options, CrashPoints.NONE);
  }

  /** The same, halting at {@code crash}'s points (the crash tests'). */
  public Restatement(Lakehouse lakehouse, Options options, CrashPoints crash) {
    this.lakehouse = lakehouse;
    this.options = options;
    this.crash = crash;
  }

  /** Every stage in order, as one command does; resumes a run id whose stages were started before. */
  public Result run() throws Exception {
    try (RunContext ctx = new RunContext(lakehouse, options, crash)) {
      PlanStage planning = new PlanStage(ctx);
      Plan plan;
      if (ctx.ledger.read().unknown()) {
        // a new run with nothing to do leaves no trace: no branch, no commit
        plan = planning.attempt(1, planning.previousMarks(), false);
      } else {
        planning.run();
        plan = ctx.ledger.read().plan().orElseThrow(() -> new RestatementException("run " + options.runId()
            + " was merged, but its branch is gone: nothing more to do under this run id"));
      }
      if (plan.nothingToDo()) {
        return Result.nothingToDo(plan, ctx.refs.branch(ctx.staging).getHash());
      }
      new WriteStage(ctx).run();
      if (new AuditStage(ctx).run().failed()) {
        return Result.auditFailed(plan, ctx.corrections(plan), ctx.lastChecks, ctx.refs.branch(ctx.staging).getHash());
      }
      StageResult merged = new MergeStage(ctx).run();
      RunState s = ctx.ledger.read();
      plan = s.plan().orElseThrow();
      if (merged.failed()) {
        return Result.auditFailed(plan, ctx.corrections(plan), ctx.lastChecks, ctx.refs.branch(ctx.staging).getHash());
      }
      if (merged.outcome() == StageResult.Outcome.NOTHING_TO_RESTATE) {
        return Result.nothingToDo(plan, ctx.refs.branch(ctx.staging).getHash());
      }
      new TagStage(ctx).run();
      List<AuditCheck> checks = ctx.lastChecks.isEmpty() ? new BranchAudit(ctx).recorded(plan) : ctx.lastChecks;
      return Result.merged(plan, ctx.corrections(plan), checks, s.merged().orElseThrow(), ctx.ledger.tagName());
    }
  }

  /** Runs one stage. */
  public StageResult stage(Stage stage) throws Exception {
    try (RunContext ctx = new RunContext(lakehouse, options, crash)) {
      return switch (stage) {
        case PLAN -> new PlanStage(ctx).run();
        case WRITE -> new WriteStage(ctx).run();
        case AUDIT -> new AuditStage(ctx).run();
        case MERGE -> new MergeStage(ctx).run();
        case TAG -> new TagStage(ctx).run();
      };
    }
  }

  /** One line: the check that failed, and the SQL to look at the branch with. */
  public String auditFailure(AuditCheck failed, String branch) {
    try (RunContext ctx = new RunContext(lakehouse, options, crash)) {
      return new AuditStage(ctx).failure(failed, branch);
    }
  }
}
