package io.tidemark.cli;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.report.PipelineReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "report", mixinStandardHelpOptions = true,
    description = {"Write the pipeline report, one HTML page with its charts inside that opens without a server.",
        "It reads, on the configured branch, the stream-batches table (every micro-batch of every stream run), the "
            + "restatement log and the tables' metadata, and shows the time per stream per arrival, the late rows "
            + "dropped per arrival next to what the restatements recovered, the state size over the runs, the "
            + "watermarks against the newest event times, the data files per table before and after the last "
            + "compaction, and the keys the raw archives kept beyond the feeds' columns. It changes nothing."})
final class ReportCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--out", paramLabel = "<file>",
      description = "Where to write the page (default: <home>/reports/pipeline.html).")
  Path out;

  @Override
  public Integer call() throws Exception {
    TidemarkConfig config = Tidemark.root(spec).config();
    try (Lakehouse lh = Lakehouse.open(config, "tidemark report")) {
      write(lh, out, spec.commandLine().getOut());
    }
    return 0;
  }

  /** Writes the report to {@code page} (null: its default place) and says where. */
  static void write(Lakehouse lh, Path page, PrintWriter out) throws java.io.IOException {
    Path written = PipelineReport.write(lh.spark(), lh.config(),
        page == null ? PipelineReport.defaultPath(lh.config()) : page);
    out.println("pipeline report: " + written.toAbsolutePath());
    out.flush();
  }
}
