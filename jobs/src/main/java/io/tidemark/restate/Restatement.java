package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.CommitKeys;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.StreamKind;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.WindowedCounts;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Repairs what the streams' watermarks dropped, so that nothing that arrived is lost: write-audit-publish on a
 * Nessie branch, in five stages that can run one by one (each in its own process, e.g. an Airflow task) or all
 * in one go ({@link #run()}):
 * <ol>
 *   <li>plan: reads the marks (raw archives' snapshots, streams' watermarks), cuts {@code restate-<run id>} from
 *       main and records there what will be corrected;</li>
 *   <li>write: the corrected finalized windows, the dedup's missing first occurrences and surplus repeats, the
 *       company changes the SCD2 stream never applied, and one restatement-log row per correction;</li>
 *   <li>audit: checks the branch; a failed audit leaves main alone and the branch in place;</li>
 *   <li>publish: merges the branch into main as one commit that says what it did. When streams committed to a
 *       corrected table on main meanwhile, Nessie refuses the merge; the branch is then dropped and the
 *       corrections recomputed on the new head, on {@code restate-<run id>-2}, audited and merged;</li>
 *   <li>tag: {@code restated-<run id>} at the merge commit.</li>
 * </ol>
 * Each stage finds its state in Nessie alone ({@link RunLedger}), does nothing when it is done, refuses when the
 * stage before it has not run, and computes the corrections from the branch's commit at plan time, so a stage
 * run later gives the same result.
 */
public final class Restatement {
  public static final String BRANCH = "restate-";
  public static final String TAG = "restated-";
  /** In the published commit: the raw events table, which names the pipeline whose marks the commit holds. */
  static final String PIPELINE = CommitKeys.PIPELINE;

  /**
   * How a run goes. {@code refPrefix} keeps runs of separate setups (tests, benchmarks) apart in one Nessie;
   * the hooks let tests corrupt the branch before the audit, or commit to main before the publish.
   */
  public record Options(String runId, int maxAttempts, Path workRoot, String refPrefix, Consumer<String> afterWrite,
                        Consumer<String> beforePublish) {
    public static Options defaults(TidemarkConfig config) {
      return new Options(RunId.generate(), 3, config.home().resolve("restate"), "", b -> { }, b -> { });
    }

    /** Where the audit keeps its copies of raw files. */
    public Path workDir() {
      return workRoot.resolve(runId);
    }

    public Options withRunId(String id) {
      return new Options(RunId.check(id), maxAttempts, workRoot, refPrefix, afterWrite, beforePublish);
    }

    public Options withMaxAttempts(int n) {
      if (n < 1) {
        throw new io.tidemark.config.ConfigException("--max-attempts: must be at least 1, not " + n);
      }
      return new Options(runId, n, workRoot, refPrefix, afterWrite, beforePublish);
    }

    public Options withPrefix(String prefix) {
      return new Options(runId, maxAttempts, workRoot, RunId.checkPrefix(prefix), afterWrite, beforePublish);
    }

    public Options withHooks(Consumer<String> afterWrite, Consumer<String> beforePublish) {
      return new Options(runId, maxAttempts, workRoot, refPrefix, afterWrite, beforePublish);
    }
  }

  /** What a run did. {@code published} false with no corrections means there was nothing to restate. */
  public record Result(String runId, String branch, boolean published, String tag, int attempts, List<Row> windows,
                       long events, long companyChanges, List<AuditCheck> checks, String mainHash,
                       Map<String, String> marks) {
    static Result nothingToDo(Plan plan, String mainHash) {
      return new Result(plan.runId(), plan.branch(), false, null, plan.attempt(), List.of(), 0, 0, List.of(),
          mainHash, plan.now().properties());
    }

    static Result auditFailed(Plan plan, CorrectionSet c, List<AuditCheck> checks, String mainHash) {
      return new Result(plan.runId(), plan.branch(), false, null, plan.attempt(), c.windows(), c.eventCount(),
          c.changeCount(), checks, mainHash, plan.now().properties());
    }

    static Result published(Plan plan, CorrectionSet c, List<AuditCheck> checks, String mergeHash, String tag) {
      return new Result(plan.runId(), plan.branch(), true, tag, plan.attempt(), c.windows(), c.eventCount(),
          c.changeCount(), checks, mergeHash, plan.now().properties());
    }

    public boolean nothingToDo() {
      return windows.isEmpty() && events == 0 && companyChanges == 0;
    }
  }

  /** What one stage did, for people: its lines, and the one-line reason when it failed. */
  public record StageResult(String stage, Outcome outcome, List<String> lines, String failure) {
    public enum Outcome { DONE, ALREADY_DONE, NOTHING_TO_RESTATE, FAILED }

    public boolean failed() {
      return outcome == Outcome.FAILED;
    }
  }

  private final Lakehouse lakehouse;
  /** Started on first use: stages that find their work done need Nessie only. */
  private SparkSession spark;
  private final TidemarkConfig config;
  private final Options options;
  private final String main;
  /** Corrections already computed in this process, by the plan commit they were computed from. */
  private final Map<String, CorrectionSet> computed = new HashMap<>();
  private List<AuditCheck> lastChecks = List.of();

  public Restatement(Lakehouse lakehouse, Options options) {
    this.lakehouse = lakehouse;
    this.config = lakehouse.config();
    this.options = options;
    this.main = config.nessieRef();
  }

  /** Every stage in order, as one command does; resumes a run id whose stages were started before. */
  public Result run() throws Exception {
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      RunLedger ledger = ledger(refs);
      boolean fresh = ledger.read().unknown();
      plan(refs, ledger);
      RunState s = ledger.read();
      Plan plan = s.plan().orElseThrow(() -> new RestatementException("run " + options.runId()
          + " was published, but its branch is gone: nothing more to do under this run id"));
      if (plan.nothingToDo()) {
        return nothing(refs, plan, fresh);
      }
      write(refs, ledger);
      if (audit(refs, ledger).failed()) {
        return Result.auditFailed(plan, corrections(plan), lastChecks, refs.branch(main).getHash());
      }
      StageResult published = publish(refs, ledger);
      s = ledger.read();
      plan = s.plan().orElseThrow();
      if (published.failed()) {
        return Result.auditFailed(plan, corrections(plan), lastChecks, refs.branch(main).getHash());
      }
      if (published.outcome() == StageResult.Outcome.NOTHING_TO_RESTATE) {
        return nothing(refs, plan, fresh);
      }
      tag(refs, ledger);
      List<AuditCheck> checks = lastChecks.isEmpty() ? recordedChecks(plan) : lastChecks;
      return Result.published(plan, corrections(plan), checks, s.merged().orElseThrow(), ledger.tagName());
    }
  }

  private Result nothing(NessieRefs refs, Plan plan, boolean fresh) {
    if (fresh) {
      // as before stages existed: a run with nothing to do leaves no trace
      refs.deleteBranch(plan.branch());
    }
    return Result.nothingToDo(plan, refs.branch(main).getHash());
  }

  /** Runs one stage by name: plan, write, audit, publish or tag. */
  public StageResult stage(String name) throws Exception {
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      RunLedger ledger = ledger(refs);
      return switch (name) {
        case "plan" -> plan(refs, ledger);
        case "write" -> write(refs, ledger);
        case "audit" -> audit(refs, ledger);
        case "publish" -> publish(refs, ledger);
        case "tag" -> tag(refs, ledger);
        default -> throw new IllegalArgumentException("no stage " + name);
      };
    }
  }

  private RunLedger ledger(NessieRefs refs) {
    return new RunLedger(refs, options.refPrefix(), options.runId(), main);
  }

  private StageResult plan(NessieRefs refs, RunLedger ledger) throws Exception {
    RunState s = ledger.read();
    if (s.merged().isPresent()) {
      return already("plan", "published as " + s.merged().get());
    }
    if (s.plan().isPresent()) {
      return already("plan", s.plan().get().summary() + " on branch " + s.plan().get().branch());
    }
    s.branch().ifPresent(b -> refs.deleteBranch(b.getName())); // cut, but the plan was never recorded: cut again
    // the marks are snapshot ids of this pipeline's raw tables: another pipeline's tag in the same catalog says
    // nothing about them (a tag from before the key was written is taken as this pipeline's)
    String pipeline = config.tables().rawEvents().toString();
    Marks previous = refs.newestTagProperties(options.refPrefix() + TAG,
            props -> pipeline.equals(props.getOrDefault(PIPELINE, pipeline)))
        .map(Marks::of).orElse(Marks.none());
    Plan plan = planAttempt(refs, ledger, 1, previous);
    return done("plan", plan.summary(), "branch " + plan.branch() + " cut from " + main + ", plan recorded at "
        + plan.hash() + " (marks: " + plan.now().properties() + ")");
  }

  /** Reads the marks, cuts the attempt's branch from main, computes the corrections there and records the plan. */
  private Plan planAttempt(NessieRefs refs, RunLedger ledger, int attempt, Marks previous) {
    spark();
    Marks now = current(); // before the cut: the branch holds at least what these marks cover
    String name = ledger.branchName(attempt);
    refs.createBranch(name, refs.branch(main));
    CorrectionSet c = CorrectionSet.compute(spark(), config.tables(), name, previous, now, config.countsWindow());
    Plan plan = ledger.markPlan(new Plan(options.runId(), name, attempt, null, previous, now, c.windows().size(),
        c.eventCount(), c.changeCount()));
    computed.put(plan.hash(), c);
    return plan;
  }

  private StageResult write(NessieRefs refs, RunLedger ledger) throws Exception {
    RunState s = ledger.read();
    Optional<StageResult> skip = skip("write", s, "plan");
    if (skip.isPresent()) {
      return skip.get();
    }
    if (s.written().isPresent()) {
      return already("write", "written on " + s.plan().get().branch());
    }
    Plan plan = s.plan().get();
    List<String> lines = new ArrayList<>();
    if (!s.branch().get().getHash().equals(plan.hash())) {
      // a write that did not finish: its commits are dropped and the write done again from the plan's commit
      refs.reset(plan.branch(), plan.hash());
      lines.add("an unfinished write was dropped: branch " + plan.branch() + " reset to the plan's commit");
    }
    writeAttempt(ledger, plan);
    lines.add("written on branch " + plan.branch() + ": " + plan.windows() + " window(s), " + plan.events()
        + " event(s), " + plan.changes() + " company change(s) corrected");
    return new StageResult("write", StageResult.Outcome.DONE, lines, null);
  }

  private void writeAttempt(RunLedger ledger, Plan plan) throws Exception {
    new CorrectionWriter(spark(), config.tables(), options.runId()).write(plan.branch(), corrections(plan));
    ledger.markWritten(plan);
    options.afterWrite().accept(plan.branch());
  }

  private StageResult audit(NessieRefs refs, RunLedger ledger) throws Exception {
    RunState s = ledger.read();
    Optional<StageResult> skip = skip("audit", s, "plan");
    if (skip.isPresent()) {
      return skip.get();
    }
    if (s.written().isEmpty()) {
      return missing("audit", "write");
    }
    if (s.auditPassedAtHead()) {
      return already("audit", s.audit().get().checks() + " checks passed on " + s.plan().get().branch());
    }
    return auditResult(auditAttempt(ledger, s.plan().get()), s.plan().get());
  }

  private List<AuditCheck> auditAttempt(RunLedger ledger, Plan plan) throws Exception {
    List<AuditCheck> checks = new BranchAudit(spark(), lakehouse.storage(), config.tables(), config.countsWindow())
        .audit(plan, corrections(plan), options.workDir());
    ledger.markAudited(plan, checks);
    lastChecks = checks;
    return checks;
  }

  private StageResult auditResult(List<AuditCheck> checks, Plan plan) {
    List<String> lines = new ArrayList<>(List.of("audit of branch " + plan.branch() + ":"));
    checks.forEach(c -> lines.add("  " + c));
    Optional<AuditCheck> failed = checks.stream().filter(c -> !c.passed()).findFirst();
    return failed.isEmpty() ? new StageResult("audit", StageResult.Outcome.DONE, lines, null)
        : new StageResult("audit", StageResult.Outcome.FAILED, lines, auditFailure(failed.get(), plan.branch()));
  }

  /** One line: the check that failed, and the SQL to look at the branch with. */
  public String auditFailure(AuditCheck failed, String branch) {
    return "audit failed: " + failed.name() + " on " + failed.table() + " (" + failed.detail() + "); main is "
        + "untouched; look at branch " + branch + ": tidemark sql \"SELECT * FROM " + config.tables().auditChecks()
        + "@" + branch + " WHERE run_id = '" + options.runId() + "'\"";
  }

  private StageResult publish(NessieRefs refs, RunLedger ledger) throws Exception {
    RunState s = ledger.read();
    Optional<StageResult> skip = skip("publish", s, "plan");
    if (skip.isPresent()) {
      return skip.get();
    }
    Plan plan = s.plan().get();
    int checks;
    if (plan.attempt() > 1 && !s.auditPassedAtHead()) {
      // a publish stopped while it retried: it goes on where it stopped
      if (s.written().isEmpty()) {
        writeAttempt(ledger, plan);
      }
      List<AuditCheck> audited = auditAttempt(ledger, plan);
      if (audited.stream().anyMatch(c -> !c.passed())) {
        return auditResult(audited, plan);
      }
      checks = audited.size();
    } else if (s.written().isEmpty()) {
      return missing("publish", "write");
    } else if (s.audit().isEmpty() || !s.auditPassedAtHead()) {
      return s.audit().isPresent() && !s.audit().get().passed()
          && s.branch().get().getHash().equals(s.audit().get().hash())
          ? new StageResult("publish", StageResult.Outcome.FAILED, List.of(), "the audit of branch " + plan.branch()
              + " failed (" + s.audit().get().failure() + "): fix the branch, then run `tidemark restate audit --run-id "
              + options.runId() + "` again")
          : missing("publish", "audit");
    } else {
      checks = s.audit().get().checks();
    }
    for (;;) {
      if (plan.attempt() == 1) {
        options.beforePublish().accept(plan.branch());
      }
      Optional<String> merged = refs.merge(refs.branch(plan.branch()), main, mergeMessage(plan, checks),
          RunLedger.AUTHOR, mergeProperties(plan, checks));
      if (merged.isPresent()) {
        return done("publish", "published to " + main + " (" + merged.get() + ")"
            + (plan.attempt() > 1 ? " from " + plan.branch() + ", attempt " + plan.attempt() + ": main had moved" : ""));
      }
      if (plan.attempt() >= options.maxAttempts()) {
        throw new RestatementException("main kept changing under the restatement: gave up after "
            + options.maxAttempts() + " attempts; run it again when the streams are quieter");
      }
      // a stream committed to a table this run corrected: recompute on the new head
      refs.deleteBranch(plan.branch());
      plan = planAttempt(refs, ledger, plan.attempt() + 1, plan.previous());
      if (plan.nothingToDo()) {
        return nothingToRestate("publish");
      }
      writeAttempt(ledger, plan);
      List<AuditCheck> audited = auditAttempt(ledger, plan);
      if (audited.stream().anyMatch(c -> !c.passed())) {
        return auditResult(audited, plan);
      }
      checks = audited.size();
    }
  }

  private String mergeMessage(Plan plan, int checks) {
    return "restatement " + options.runId() + ": " + plan.windows() + " window(s), " + plan.events() + " event(s), "
        + plan.changes() + " company change(s) corrected; audit passed (" + checks + " checks)";
  }

  private Map<String, String> mergeProperties(Plan plan, int checks) {
    Map<String, String> props = new LinkedHashMap<>(plan.now().properties());
    props.put(Plan.RUN_ID, options.runId());
    props.put(Plan.BRANCH, plan.branch());
    props.put(CommitKeys.WINDOWS_CORRECTED, Integer.toString(plan.windows()));
    props.put(CommitKeys.EVENTS_CORRECTED, Long.toString(plan.events()));
    props.put(CommitKeys.CHANGES_APPLIED, Long.toString(plan.changes()));
    props.put(CommitKeys.AUDIT, CommitKeys.PASSED);
    props.put(CommitKeys.AUDIT_CHECKS, Integer.toString(checks));
    props.put(Plan.STAGE, "publish");
    props.put(PIPELINE, config.tables().rawEvents().toString());
    return props;
  }

  private StageResult tag(NessieRefs refs, RunLedger ledger) {
    RunState s = ledger.read();
    if (s.tagged().isPresent()) {
      return already("tag", ledger.tagName() + " at " + s.tagged().get());
    }
    if (s.merged().isEmpty()) {
      Optional<StageResult> skip = skip("tag", s, "plan");
      return skip.orElseGet(() -> missing("tag", "publish"));
    }
    refs.tag(ledger.tagName(), main, s.merged().get());
    return done("tag", "tagged " + ledger.tagName() + " at " + s.merged().get() + "; Nessie UI: "
        + lakehouse.endpoints().nessieUi());
  }

  /** The answer of a stage that has nothing to do: published already, not planned, or nothing to restate. */
  private Optional<StageResult> skip(String stage, RunState s, String first) {
    if (s.merged().isPresent()) {
      return Optional.of(already(stage, "published as " + s.merged().get()));
    }
    if (s.plan().isEmpty()) {
      return Optional.of(missing(stage, first));
    }
    if (s.plan().get().nothingToDo()) {
      return Optional.of(nothingToRestate(stage));
    }
    return Optional.empty();
  }

  private StageResult nothingToRestate(String stage) {
    return new StageResult(stage, StageResult.Outcome.NOTHING_TO_RESTATE,
        List.of("nothing to restate for run " + options.runId()), null);
  }

  private StageResult already(String stage, String what) {
    return new StageResult(stage, StageResult.Outcome.ALREADY_DONE,
        List.of(stage + ": already done for run " + options.runId() + " (" + what + ")"), null);
  }

  private StageResult missing(String stage, String first) {
    return new StageResult(stage, StageResult.Outcome.FAILED, List.of(), stage + " of run " + options.runId()
        + " needs its " + first + " first: run `tidemark restate " + first + " --run-id " + options.runId() + "`");
  }

  private static StageResult done(String stage, String... lines) {
    return new StageResult(stage, StageResult.Outcome.DONE, List.of(lines), null);
  }

  /** The plan's corrections: computed in this process already, or again from the branch at the plan's commit. */
  private CorrectionSet corrections(Plan plan) {
    return computed.computeIfAbsent(plan.hash(), h -> CorrectionSet.compute(spark(), config.tables(),
        plan.branch() + "#" + h, plan.previous(), plan.now(), config.countsWindow()));
  }

  /** The checks recorded on the branch by an audit of an earlier process. */
  private List<AuditCheck> recordedChecks(Plan plan) {
    List<AuditCheck> checks = new ArrayList<>();
    for (Row r : spark().sql("SELECT check_name, target_table, passed, detail FROM "
        + config.tables().auditChecks().sqlAt(plan.branch()) + " WHERE run_id = '" + options.runId()
        + "' AND branch = '" + plan.branch() + "'").collectAsList()) {
      checks.add(new AuditCheck(r.getString(0), r.getString(1), r.getBoolean(2), r.getString(3)));
    }
    return checks;
  }

  private SparkSession spark() {
    if (spark == null) {
      spark = lakehouse.spark();
    }
    return spark;
  }

  /** The raw archives' current snapshots and the streams' watermarks, read now. */
  private Marks current() {
    return new Marks(snapshot(config.tables().rawEvents()), snapshot(config.tables().rawCompanyChanges()),
        watermark(config.tables().eventCounts(), WindowedCounts.NAME),
        watermark(config.tables().events(), Dedup.NAME),
        watermark(config.tables().companies(), Scd2Upsert.NAME));
  }

  private Optional<Long> snapshot(TableName table) {
    return Provenance.head(spark, table);
  }

  /** From the stream's checkpoint, else from the provenance of its newest commit. */
  private Optional<Instant> watermark(TableName table, String stream) {
    return Provenance.watermark(spark, StreamSpec.of(StreamKind.named(stream), config).withTable(table));
  }
}
