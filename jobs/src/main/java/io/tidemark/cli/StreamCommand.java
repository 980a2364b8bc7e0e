package io.tidemark.cli;

import io.tidemark.config.ConfigException;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "stream", mixinStandardHelpOptions = true,
    description = {"Run a stream of the pipeline once over everything that landed since its last run, then stop; "
        + "all: every stream of every feed at once.",
        "Each run is a trigger(availableNow) on the staging branch. Each stream keeps its checkpoint "
            + "(<checkpoint root>/<stream>): rerunning with the same one never writes a row twice, even after a crash.",
        "The streams are the pipeline file's (`tidemark pipeline show` lists them): per fact feed its raw archive, "
            + "its dedup and its windowed aggregates; per dimension feed its raw archive and its SCD2 stream. A kind "
            + "with --feed names that feed's stream of the kind (raw --feed companies)."})
final class StreamCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<stream>",
      description = "A stream's name, all, or a kind (raw, dedup, scd2) with --feed.")
  String stream;

  @Option(names = {"--feed", "--dataset"}, paramLabel = "<feed>",
      description = "With a kind: the feed whose stream of that kind runs (default: the stream named so).")
  String feed;

  @Option(names = "--source", paramLabel = "<path>",
      description = "Local directory or s3a:// prefix of JSON lines (default: s3a://<landing bucket>/<feed>/).")
  String source;

  @Option(names = "--checkpoint", paramLabel = "<path>",
      description = "Checkpoint of the query (default: <checkpoint root>/<stream>).")
  String checkpoint;

  @Option(names = "--table", paramLabel = "<ns.table>",
      description = "The table the stream writes (default: the pipeline file's).")
  String table;

  @Option(names = {"--side-table", "--rejected-table", "--changes-table"}, paramLabel = "<ns.table>",
      description = "The second table: a raw archive's quarantine, an SCD2 stream's change log (default: the "
          + "pipeline file's).")
  String sideTable;

  @Override
  public Integer call() {
    TidemarkConfig config = Tidemark.root(spec).config();
    if (stream.equals("all")) {
      if (feed != null || source != null || checkpoint != null || table != null || sideTable != null) {
        throw new ConfigException("stream all runs every stream as the pipeline file declares it; --feed, --source, "
            + "--checkpoint and the table options are for one stream");
      }
      List<RunReport> ended = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
      try {
        return runAndPrint(spec, "tidemark stream all",
            lh -> Streams.all(lh.spark(), config, true, Tidemark.root(spec).crashPoints(), ended::add));
      } catch (RuntimeException | Error failed) {
        // the streams that committed said what they did; the error's lines follow
        PrintWriter out = spec.commandLine().getOut();
        ended.forEach(r -> out.println(r.summary()));
        out.flush();
        throw failed;
      }
    }
    StreamSpec s = StreamSpec.of(named(config.pipeline()), config).withSource(source).withCheckpoint(checkpoint)
        .withTable(table("--table", table)).withSideTable(table("--side-table", sideTable));
    return runAndPrint(spec, "tidemark stream " + s.name(),
        lh -> {
          // a condition Spark's analyzer refuses stops the command before the stream starts, as stream all does
          io.tidemark.stream.Judgement.check(lh.spark(), config.pipeline());
          return List.of(s.run(lh.spark(), Tidemark.root(spec).crashPoints()));
        });
  }

  /** The stream the arguments name: by name, or by kind and feed. */
  private StreamDef named(Pipeline p) {
    if (feed == null) {
      return p.findStream(stream).orElseThrow(() -> new ConfigException("no stream '" + stream + "' in the pipeline "
          + p.name() + " (its streams: " + String.join(", ", p.streamNames()) + ", or all)"));
    }
    Feed f;
    try {
      f = p.feed(feed);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--feed: " + e.getMessage());
    }
    StreamDef.Kind kind;
    try {
      kind = StreamDef.Kind.valueOf(stream.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      kind = null;
    }
    StreamDef.Kind k = kind;
    return p.streamsOf(f).stream().filter(s -> s.kind() == k || s.name().equals(stream)).findFirst()
        .orElseThrow(() -> new ConfigException("the feed " + feed + " has no stream '" + stream + "' (its streams: "
            + String.join(", ", p.streamsOf(f).stream().map(StreamDef::name).toList()) + ")"));
  }

  /** The table an option names, or null when it is not given. */
  static TableName table(String option, String value) {
    if (value == null) {
      return null;
    }
    try {
      return TableName.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(option + ": " + e.getMessage());
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
}
