package io.tidemark.cli;

import io.tidemark.core.Aggregation;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.spark.Work;
import io.tidemark.report.LatenessReport;
import io.tidemark.restate.AuditFailed;
import io.tidemark.restate.Restatement;
import io.tidemark.restate.RestatementException;
import io.tidemark.restate.StageResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "restate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Repair from the raw archives what the streams' watermarks dropped.",
        "Every aggregate's finalized windows are recomputed, each dedup's missing first occurrences added and "
            + "surplus repeats removed, each dimension's late changes applied. Written on a Nessie branch restate-<run id>, audited (invariants, and "
            + "DuckDB recounting from the raw Parquet files), merged into the staging branch (TIDEMARK_STAGING_BRANCH) "
            + "as one commit and tagged restated-<run id>; `tidemark publish` takes it to main. A failed audit leaves "
            + "the staging branch alone and the branch for inspection (exit code 1). With nothing to repair it "
            + "commits nothing.",
        "When it restated something, it also prints, and writes as an HTML page with a chart, how late the records "
            + "were per arrival.",
        "",
        "With no stage every stage runs in order; each stage can also run alone, e.g. as an Airflow task: "
            + "`tidemark restate plan|write|audit|merge|tag --run-id ID`.",
        "A stage keeps its state in Nessie only (the branch, its commits' properties, the staging branch's log, the "
            + "tag): run again, it says 'already done'; run before the stage it needs, it fails naming that stage."},
    subcommands = {RestateCommand.Plan.class, RestateCommand.Write.class, RestateCommand.Audit.class,
        RestateCommand.Merge.class, RestateCommand.Tag.class})
final class RestateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--run-id", paramLabel = "<id>",
      description = "Names the branch restate-ID and the tag restated-ID (default: a new id, yyyyMMddTHHmmssZ-xxxx).")
  String runId;

  @Option(names = "--max-attempts", paramLabel = "<n>", defaultValue = "3",
      description = "Recompute-and-merge attempts when streams commit to the staging branch meanwhile "
          + "(default: ${DEFAULT-VALUE}).")
  int maxAttempts;

  @Option(names = "--report-dir", paramLabel = "<dir>",
      description = "Where the lateness report goes (default: <home>/reports/<run id>).")
  Path reportDir;

  @Mixin
  RunOptions run;

  /** What every form of the command takes besides the run id. */
  static final class RunOptions {
    @Option(names = "--ref-prefix", paramLabel = "<prefix>", defaultValue = "",
        description = "Put before the run's branch and tag names (Prestate-ID, Prestated-ID), to keep the "
            + "restatements of separate pipelines in one Nessie apart (default: none).")
    String prefix;

    Restatement.Options apply(Restatement.Options options) {
      return options.withPrefix(prefix);
    }
  }

  /**
   * What only the plan reads: the whole command, `restate plan`, and `restate merge`, which plans again on a staging
   * branch that moved; the other stages list no such option.
   */
  static final class PlanOptions {
    @Option(names = "--driver-rows", paramLabel = "<n>", defaultValue = "" + Restatement.DRIVER_ROWS,
        description = "Input rows the plan reads on the driver at most; past it the plan works in Spark (0: always "
            + "in Spark, e.g. on a cluster; default: ${DEFAULT-VALUE}).")
    long driverRows;

    Restatement.Options apply(Restatement.Options options) {
      return options.withDriverRows(driverRows);
    }
  }

  @Mixin
  PlanOptions plan;

  @Override
  public Integer call() throws Exception {
    TidemarkConfig config = Tidemark.root(spec).config();
    Restatement.Options options = plan.apply(run.apply(Restatement.Options.defaults(config)
        .withMaxAttempts(maxAttempts)));
    if (runId != null) {
      options = options.withRunId(runId);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Lakehouse lh = Lakehouse.open(config.writing(), "tidemark restate", "tidemark-restate/" + options.runId())) {
      Restatement restatement = new Restatement(lh, options, Tidemark.root(spec).crashPoints());
      Work.Counts before = Work.now();
      Restatement.Result r = restatement.run();
      print(r, lh, out);
      if (Tidemark.root(spec).debug()) {
        out.println("work: " + Work.now().since(before));
      }
      if (r.nothingToDo()) {
        // the report reads the whole raw archive: with nothing late since the last run it would say nothing new
        out.println("lateness report: not written, nothing was late since the last restatement");
      } else {
        lateness(lh, reportDir != null ? reportDir : config.home().resolve("reports").resolve(options.runId()), out);
      }
      out.flush();
      if (!r.merged() && !r.nothingToDo()) {
        AuditCheck failed = r.checks().stream().filter(c -> !c.passed()).findFirst().orElseThrow();
        throw new AuditFailed(restatement.auditFailure(failed, r.branch()));
      }
    }
    return 0;
  }

  /** One stage of one run: {@code tidemark restate <stage> --run-id ID}. */
  abstract static class Stage implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--run-id", paramLabel = "<id>", required = true, description = "The run: its branch restate-ID.")
    String runId;

    @Mixin
    RunOptions run;

    Restatement.Options options(TidemarkConfig config) {
      return run.apply(Restatement.Options.defaults(config).withRunId(runId));
    }

    @Override
    public Integer call() throws Exception {
      TidemarkConfig config = Tidemark.root(spec).config();
      Restatement.Options options = options(config);
      PrintWriter out = spec.commandLine().getOut();
      try (Lakehouse lh = Lakehouse.open(config.writing(), "tidemark restate " + spec.name(),
          "tidemark-restate/" + options.runId())) {
        Work.Counts before = Work.now();
        StageResult r = new Restatement(lh, options, Tidemark.root(spec).crashPoints())
            .stage(io.tidemark.restate.Stage.named(spec.name()));
        r.lines().forEach(out::println);
        if (Tidemark.root(spec).debug()) {
          out.println("work: " + Work.now().since(before));
        }
        out.flush();
        if (r.failed()) {
          throw r.stage() == io.tidemark.restate.Stage.AUDIT ? new AuditFailed(r.failure())
              : new RestatementException(r.failure());
        }
      }
      return 0;
    }
  }

  @Command(name = "plan", mixinStandardHelpOptions = true, description = {"Cut branch restate-ID from the staging "
      + "branch (when missing) and record on it what will be corrected and the marks used (raw snapshot ids, stream "
      + "watermarks).",
      "Prints 'planned: N window(s), M record(s), K dimension change(s)' or 'nothing to restate'."})
  static final class Plan extends Stage {
    @Mixin
    PlanOptions plan;

    @Override
    Restatement.Options options(TidemarkConfig config) {
      return plan.apply(super.options(config));
    }
  }

  @Command(name = "write", mixinStandardHelpOptions = true, description = {"Write the planned corrections and their "
      + "restatement-log rows on restate-ID. A write that was cut short is dropped and done again."})
  static final class Write extends Stage {}

  @Command(name = "audit", mixinStandardHelpOptions = true, description = {"Audit restate-ID and record the checks on "
      + "it; exit 1 when a check fails (staging branch untouched, branch kept for inspection).",
      "What releases a failed audit: docs/troubleshooting.md#a-failed-restatement-audit."})
  static final class Audit extends Stage {}

  @Command(name = "merge", aliases = io.tidemark.restate.Stage.FORMER_MERGE_LABEL, mixinStandardHelpOptions = true,
      description = {"Merge the audited restate-ID into the staging branch as one commit (the next `tidemark "
          + "publish` takes it to main); on a merge conflict recompute on the new head (restate-ID-2, ...), audit and "
          + "merge.",
          "`tidemark restate publish` is another name of this stage, kept for the scripts and DAG runs that use it."})
  static final class Merge extends Stage {
    @Option(names = "--max-attempts", paramLabel = "<n>", defaultValue = "3",
        description = "Recompute-and-merge attempts when streams commit to the staging branch meanwhile "
          + "(default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Mixin
    PlanOptions plan;

    @Override
    Restatement.Options options(TidemarkConfig config) {
      return plan.apply(super.options(config)).withMaxAttempts(maxAttempts);
    }
  }

  @Command(name = "tag", mixinStandardHelpOptions = true,
      description = {"Tag restated-ID at the merge commit of the run on the staging branch."})
  static final class Tag extends Stage {}

  /**
   * A corrected window for people: {@code window 2026-01-01T00:00:00Z c1: n 4 -> 6} (the aggregate named when the
   * pipeline has several), each measure that changed.
   */
  static String window(Pipeline p, WindowFix w) {
    Aggregation rule = p.aggregates().stream().filter(a -> a.name().equals(w.aggregate())).findFirst().orElseThrow()
        .rule();
    List<String> changed = new java.util.ArrayList<>();
    for (int i = 0; i < rule.measures().size(); i++) {
      Object now = w.fresh().get(i);
      Object old = w.old() == null ? null : w.old().get(i);
      if (w.old() == null || !rule.measures().get(i).same(old, now)) {
        changed.add(rule.measures().get(i).name() + " " + (w.old() == null ? "(none)" : old) + " -> " + now);
      }
    }
    return "window " + w.start() + " " + String.join("|", w.group().stream().map(String::valueOf).toList())
        + (p.aggregates().size() > 1 ? " (" + w.aggregate() + ")" : "") + ": " + String.join(", ", changed);
  }

  /** The lateness report of each windowed aggregate, printed and written under {@code dir}. */
  static void lateness(Lakehouse lh, Path dir, PrintWriter out) throws java.io.IOException {
    Pipeline p = lh.config().pipeline();
    for (FactFeed f : p.facts()) {
      for (Aggregate a : f.aggregates()) {
        LatenessReport.Report report = LatenessReport.compute(lh.spark(), f, a);
        LatenessReport.print(report, out);
        Path page = LatenessReport.write(report, p.aggregates().size() > 1 ? dir.resolve(a.name()) : dir);
        out.println("lateness report: " + page);
      }
    }
  }

  static void print(Restatement.Result r, Lakehouse lh, PrintWriter out) {
    out.println("restatement " + r.runId() + " (watermarks used: " + r.marks() + ")");
    if (r.nothingToDo()) {
      out.println("nothing to restate: no late data since the last restatement; no branch, no commit");
      return;
    }
    out.println("branch " + r.branch() + (r.attempts() > 1 ? " (attempt " + r.attempts() + ": "
        + lh.config().nessieRef() + " had moved)" : ""));
    List<WindowFix> windows = r.windows();
    out.println(windows.size() + " finalized window(s) corrected, " + r.records() + " record key(s) corrected, "
        + r.changes() + " late dimension change(s) applied");
    Pipeline p = lh.config().pipeline();
    for (WindowFix w : windows.subList(0, Math.min(20, windows.size()))) {
      out.println("  " + window(p, w));
    }
    out.println("audit:");
    r.checks().forEach(c -> out.println("  " + c));
    if (r.merged()) {
      // the restatement merges into the branch the writers commit to; readers of the published branch see it after
      // the next `tidemark publish`
      TidemarkConfig c = lh.config();
      out.println("merged into " + c.nessieRef() + " (" + r.stagingHash() + "), tagged " + r.tag()
          + (c.isWriting() ? "; `tidemark publish` takes it to " + c.publishedRef() : ""));
      out.println("Nessie UI: " + lh.endpoints().nessieUi() + " (branch " + r.branch() + ", tag " + r.tag() + ")");
    }
  }
}
