package io.tidemark.cli;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Feed;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.StreamKind;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "stream", mixinStandardHelpOptions = true,
    description = {"Run a stream once over everything that landed since its last run (trigger availableNow), "
        + "then stop. Each stream keeps its checkpoint: rerunning with the same one never writes a row twice, "
        + "even after a crash."},
    subcommands = {StreamCommand.Counts.class, StreamCommand.DedupCmd.class, StreamCommand.Raw.class,
        StreamCommand.Scd2.class, StreamCommand.All.class})
final class StreamCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** --source and --checkpoint, laid over the configured stream. */
  static final class Io {
    @Option(names = "--source", paramLabel = "PATH",
        description = "Local directory or s3a:// prefix of JSON lines (default: s3a://<landing bucket>/events/, "
            + "or .../companies/ for company changes).")
    String source;

    @Option(names = "--checkpoint", paramLabel = "PATH",
        description = "Checkpoint of the query (default: <checkpoint root>/<stream>).")
    String checkpoint;

    /** The stream as configured, with --source and --checkpoint when given. */
    StreamSpec spec(StreamKind kind, TidemarkConfig config) {
      return StreamSpec.of(kind, config).withSource(source).withCheckpoint(checkpoint);
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
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config(), app)) {
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
  static final class Counts implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Io io;

    @Option(names = "--table", paramLabel = "NS.TABLE", description = "Default: TIDEMARK_TABLE_EVENT_COUNTS.")
    String table;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      StreamSpec s = io.spec(StreamKind.COUNTS, c).withTable(table("--table", table));
      return runAndPrint(spec, "tidemark stream windowed-counts", lh -> List.of(s.run(lh.spark())));
    }
  }

  @Command(name = "dedup", mixinStandardHelpOptions = true,
      description = "One row per event_id, remembered for the watermark delay (--dedup-watermark, default "
          + Setting.Defaults.DEDUP_WATERMARK + "): dropDuplicatesWithinWatermark.")
  static final class DedupCmd implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Io io;

    @Option(names = "--table", paramLabel = "NS.TABLE", description = "Default: TIDEMARK_TABLE_EVENTS.")
    String table;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      StreamSpec s = io.spec(StreamKind.DEDUP, c).withTable(table("--table", table));
      return runAndPrint(spec, "tidemark stream dedup", lh -> List.of(s.run(lh.spark())));
    }
  }

  @Command(name = "raw", mixinStandardHelpOptions = true,
      description = "Every valid line into the raw archive (no watermark), every other line into the quarantine "
          + "with its reason; --dataset companies for the company changes.")
  static final class Raw implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Io io;

    @Option(names = "--dataset", defaultValue = "events",
        description = "events or companies (default: ${DEFAULT-VALUE}).")
    String dataset;

    @Option(names = "--table", paramLabel = "NS.TABLE",
        description = "Default: TIDEMARK_TABLE_RAW_EVENTS, or TIDEMARK_TABLE_RAW_COMPANY_CHANGES for companies.")
    String table;

    @Option(names = "--rejected-table", paramLabel = "NS.TABLE", description = "Default: TIDEMARK_TABLE_REJECTED.")
    String rejectedTable;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      StreamSpec s = io.spec(StreamKind.raw(Feed.parse(dataset)), c).withTable(table("--table", table))
          .withSideTable(table("--rejected-table", rejectedTable));
      return runAndPrint(spec, "tidemark stream raw", lh -> List.of(s.run(lh.spark())));
    }
  }

  @Command(name = "scd2", mixinStandardHelpOptions = true,
      description = "The company dimension as SCD2: per micro-batch one MERGE INTO, keeping the history equal to "
          + "the one rebuilt from every change applied (out-of-order changes split history; repeats do nothing).")
  static final class Scd2 implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    Io io;

    @Option(names = "--table", paramLabel = "NS.TABLE", description = "Default: TIDEMARK_TABLE_COMPANIES.")
    String table;

    @Option(names = "--changes-table", paramLabel = "NS.TABLE",
        description = "The log of applied changes (default: TIDEMARK_TABLE_COMPANY_CHANGES).")
    String changesTable;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      StreamSpec s = io.spec(StreamKind.SCD2, c).withTable(table("--table", table))
          .withSideTable(table("--changes-table", changesTable));
      return runAndPrint(spec, "tidemark stream scd2", lh -> List.of(s.run(lh.spark())));
    }
  }

  @Command(name = "all", mixinStandardHelpOptions = true,
      description = "raw, dedup and windowed-counts over the events, then raw and scd2 over the company changes, "
          + "one run each, on the configured sources, tables and checkpoints.")
  static final class All implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      TidemarkConfig c = Tidemark.root(spec).config();
      return runAndPrint(spec, "tidemark stream all", lh -> Streams.all(lh.spark(), c));
    }
  }
}
