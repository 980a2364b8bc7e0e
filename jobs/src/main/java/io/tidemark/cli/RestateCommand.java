package io.tidemark.cli;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.restate.LatenessReport;
import io.tidemark.restate.Restatement;
import io.tidemark.restate.RestatementException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "restate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Repair what the streams' watermarks dropped, from the raw archives: finalized windows "
        + "recounted, the dedup's missing first occurrences added and surplus repeats removed, late company changes "
        + "applied. Written on a Nessie branch restate-<run id>, audited (invariants, and DuckDB recounting from the "
        + "raw Parquet files), merged into main as one commit and tagged restated-<run id>. A failed audit leaves main "
        + "alone and the branch for inspection (exit code 1). With nothing to repair it commits nothing.",
        "Also prints, and writes as an HTML page with a chart, how late the events were per arrival."})
final class RestateCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--max-attempts", defaultValue = "3",
      description = "Recompute-and-merge attempts when streams commit to main meanwhile (default: ${DEFAULT-VALUE}).")
  int maxAttempts;

  @Option(names = "--report-dir", paramLabel = "DIR", description = "Default: <home>/reports/<run id>.")
  Path reportDir;

  @Override
  public Integer call() throws Exception {
    TidemarkConfig config = Tidemark.root(spec).config();
    Restatement.Options defaults = Restatement.Options.defaults(config);
    Restatement.Options options = new Restatement.Options(defaults.runId(), maxAttempts, defaults.workDir(), "",
        defaults.afterWrite(), defaults.beforePublish());
    PrintWriter out = spec.commandLine().getOut();
    try (Lakehouse lh = Lakehouse.open(config, "tidemark restate", "tidemark-restate/" + options.runId())) {
      Restatement.Result r = new Restatement(lh, options).run();
      print(r, lh, out);
      LatenessReport.Report report = LatenessReport.compute(lh.spark(), config.tables().rawEvents(),
          config.countsWatermark(), config.countsWindow());
      LatenessReport.print(report, out);
      Path page = LatenessReport.write(report, reportDir != null ? reportDir
          : config.home().resolve("reports").resolve(options.runId()));
      out.println("lateness report: " + page);
      out.flush();
      if (!r.published() && !r.nothingToDo()) {
        AuditCheck failed = r.checks().stream().filter(c -> !c.passed()).findFirst().orElseThrow();
        throw new RestatementException("audit failed: " + failed.name() + " on " + failed.table() + " (" + failed.detail()
            + "); main is untouched; look at branch " + r.branch() + ": tidemark sql \"SELECT * FROM "
            + config.tables().auditChecks() + "@" + r.branch() + " WHERE run_id = '" + r.runId() + "'\"");
      }
    }
    return 0;
  }

  static void print(Restatement.Result r, Lakehouse lh, PrintWriter out) {
    out.println("restatement " + r.runId() + " (watermarks used: " + r.marks() + ")");
    if (r.nothingToDo()) {
      out.println("nothing to restate: no late data since the last restatement; no branch, no commit");
      return;
    }
    out.println("branch " + r.branch() + (r.attempts() > 1 ? " (attempt " + r.attempts() + ": main had moved)" : ""));
    List<Row> windows = r.windows();
    out.println(windows.size() + " finalized window(s) corrected, " + r.events() + " event_id(s) corrected, "
        + r.companyChanges() + " late company change(s) applied");
    for (Row w : windows.subList(0, Math.min(20, windows.size()))) {
      out.println("  window " + w.getTimestamp(1).toInstant() + " " + w.getString(0) + ": n "
          + (w.isNullAt(2) ? "(none)" : w.getLong(2)) + " -> " + w.getLong(3));
    }
    out.println("audit:");
    r.checks().forEach(c -> out.println("  " + c));
    if (r.published()) {
      out.println("published to main (" + r.mainHash() + "), tagged " + r.tag());
      out.println("Nessie UI: " + lh.endpoints().nessieUi() + " (branch " + r.branch() + ", tag " + r.tag() + ")");
    }
  }
}
