package io.tidemark.cli;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Feed;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.StreamKind;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "stream", mixinStandardHelpOptions = true,
    description = {"Run a stream once over everything that landed since its last run, then stop.",
        "Each run is a trigger(availableNow) on the staging branch. Each stream keeps its checkpoint: rerunning with "
            + "the same one never writes a row twice, even after a crash."},
    subcommands = {StreamCommand.Counts.class, StreamCommand.DedupCmd.class, StreamCommand.Raw.class,
        StreamCommand.Scd2.class, StreamCommand.All.class})
final class StreamCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * A command that runs one stream once: the stream as configured, with --source, --checkpoint and the tables its
   * own options name laid over it.
   */
  abstract static class OneStream implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--source", paramLabel = "<path>",
        description = "Local directory or s3a:// prefix of JSON lines (default: s3a://<landing bucket>/events/, "
            + "or .../companies/ for company changes).")
    String source;

    @Option(names = "--checkpoint", paramLabel = "<path>",
        description = "Checkpoint of the query (default: <checkpoint root>/<stream>).")
    String checkpoint;

    /** The stream to run, from the configured one of {@code kind}: {@link #configured}. */
    abstract StreamSpec stream(TidemarkConfig config);

    StreamSpec configured(StreamKind kind, TidemarkConfig config) {
      return StreamSpec.of(kind, config).withSource(source).withCheckpoint(checkpoint);
    }

    @Override
    public Integer call() {
      StreamSpec s = stream(Tidemark.root(spec).config());
      return runAndPrint(spec, "tidemark stream " + spec.name(),
          lh -> List.of(s.run(lh.spark(), Tidemark.root(spec).crashPoints())));
    }
  }

  /** The table an option names, or null when it is not given. */
  static TableName table(String option, String value) {
    if (value == null) {
      return null;
    }
    try {
      return TableName.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage());
    }
  }

  static int runAndPrint(CommandSpec spec, String app, Function<Lakehouse, List<RunReport>> streams) {
    PrintWriter out = spec.commandLine().getOut();
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config().writing(), app)) {
      for (RunReport r : streams.apply(lh)) {
        out.println(r.summary());
        out.flush();
      }
    }
    return 0;
  }

  @Command(name = "windowed-counts", mixinStandardHelpOptions = true,
      description = "Events per company and event-time window (--counts-window, default "
          + Setting.Defaults.COUNTS_WINDOW + "), appended once the watermark (--counts-watermark, default "
          + Setting.Defaults.COUNTS_WATERMARK + ") finalizes the window.")
  static final class Counts extends OneStream {
    @Option(names = "--table", paramLabel = "<ns.table>",
        description = "The table to append the windows to (default: TIDEMARK_TABLE_EVENT_COUNTS).")
    String table;

    @Override
    StreamSpec stream(TidemarkConfig config) {
      return configured(StreamKind.COUNTS, config).withTable(table("--table", table));
    }
  }

  @Command(name = "dedup", mixinStandardHelpOptions = true,
      description = "One row per event_id, remembered for the watermark delay (--dedup-watermark, default "
          + Setting.Defaults.DEDUP_WATERMARK + "): dropDuplicatesWithinWatermark.")
  static final class DedupCmd extends OneStream {
    @Option(names = "--table", paramLabel = "<ns.table>",
        description = "The table of deduplicated events (default: TIDEMARK_TABLE_EVENTS).")
    String table;

    @Override
    StreamSpec stream(TidemarkConfig config) {
      return configured(StreamKind.DEDUP, config).withTable(table("--table", table));
    }
  }

  @Command(name = "raw", mixinStandardHelpOptions = true,
      description = "Every valid line into the raw archive (no watermark), every other line into the quarantine "
          + "with its reason; --dataset companies for the company changes.")
  static final class Raw extends OneStream {
    @Option(names = "--dataset", paramLabel = "<dataset>", defaultValue = "events",
        description = "What to archive: events or companies (default: ${DEFAULT-VALUE}).")
    String dataset;

    @Option(names = "--table", paramLabel = "<ns.table>",
        description = "The raw archive (default: TIDEMARK_TABLE_RAW_EVENTS, or TIDEMARK_TABLE_RAW_COMPANY_CHANGES "
            + "for companies).")
    String table;

    @Option(names = "--rejected-table", paramLabel = "<ns.table>",
        description = "The quarantine of invalid lines (default: TIDEMARK_TABLE_REJECTED).")
    String rejectedTable;

    @Override
    StreamSpec stream(TidemarkConfig config) {
      return configured(StreamKind.raw(Feed.parse(dataset)), config).withTable(table("--table", table))
          .withSideTable(table("--rejected-table", rejectedTable));
    }
  }

  @Command(name = "scd2", mixinStandardHelpOptions = true,
      description = "The company dimension as SCD2, kept equal to the history rebuilt from every change applied "
          + "(out-of-order changes split history; repeats do nothing). Per micro-batch only the difference is "
          + "written: a small batch on the driver as one row delta, a large one in Spark with one MERGE INTO.")
  static final class Scd2 extends OneStream {
    @Option(names = "--table", paramLabel = "<ns.table>",
        description = "The SCD2 dimension (default: TIDEMARK_TABLE_COMPANIES).")
    String table;

    @Option(names = "--changes-table", paramLabel = "<ns.table>",
        description = "The log of applied changes (default: TIDEMARK_TABLE_COMPANY_CHANGES).")
    String changesTable;

    @Override
    StreamSpec stream(TidemarkConfig config) {
      return configured(StreamKind.SCD2, config).withTable(table("--table", table))
          .withSideTable(table("--changes-table", changesTable));
    }
  }

  @Command(name = "all", mixinStandardHelpOptions = true,
      description = "Every stream once: raw, dedup and windowed-counts over the events, raw and scd2 over the "
          + "company changes, at once, on the configured sources, tables and checkpoints.")
  static final class All implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      List<RunReport> ended = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
      try {
        return runAndPrint(spec, "tidemark stream all",
            lh -> Streams.all(lh.spark(), c, true, Tidemark.root(spec).crashPoints(), ended::add));
      } catch (RuntimeException | Error failed) {
        // the streams that committed said what they did; the error's lines follow
        PrintWriter out = spec.commandLine().getOut();
        ended.forEach(r -> out.println(r.summary()));
        out.flush();
        throw failed;
      }
    }
  }
}
