package io.tidemark.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Times;
import io.tidemark.land.Lander;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.Conditions;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.pipeline.StreamDef;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "pipeline", mixinStandardHelpOptions = true,
    description = {"The pipeline file: what it declares, and whether it is right.",
        "The file (YAML, docs/pipeline.md) declares the feeds, their columns and keys, the windowed aggregates and the "
            + "dimensions; TIDEMARK_PIPELINE names it (default: the seed's, built in). A file that is not right stops "
            + "every command in one line naming the line, the field and what is wrong (exit 2)."},
    subcommands = {PipelineCommand.Show.class, PipelineCommand.Check.class})
final class PipelineCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Print the feeds, tables, streams, checkpoints and settings the pipeline file implies.")
  static final class Show implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--format", paramLabel = "<format>", defaultValue = "text",
        description = "How to print it: text (the default) or json (for scripts).")
    String format;

    @Override
    public Integer call() {
      TidemarkConfig config = Tidemark.root(spec).config();
      Conditions.check(config.pipeline());
      PrintWriter out = spec.commandLine().getOut();
      switch (format) {
        case "text" -> text(config, out);
        case "json" -> out.println(json(config).toPrettyString());
        default -> throw new io.tidemark.config.ConfigException("--format: expected text or json, got '" + format
            + "'");
      }
      out.flush();
      return 0;
    }
  }

  @Command(name = "check", mixinStandardHelpOptions = true,
      description = "Validate a pipeline file (default: the configured one) without starting anything: exit 0 and "
          + "what it declares, or exit 2 and one line naming the line, the field and what is wrong.")
  static final class Check implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<file>",
        description = "The file to check (default: TIDEMARK_PIPELINE, or the seed's).")
    Path file;

    @Override
    public Integer call() {
      Pipeline p = file != null ? PipelineFile.read(file) : Tidemark.root(spec).config().pipeline();
      Conditions.check(p);
      PrintWriter out = spec.commandLine().getOut();
      long expectations = p.feeds().stream().mapToLong(f -> f.expectations().size()).sum();
      out.println(p.source() + ": ok: pipeline " + p.name() + ", " + p.facts().size() + " fact feed(s), "
          + p.dimensions().size() + " dimension(s), " + p.aggregates().size() + " windowed aggregate(s), "
          + expectations + " expectation(s), " + p.streams().size() + " stream(s), " + p.tables().size()
          + " table(s)");
      out.flush();
      return 0;
    }
  }

  static void text(TidemarkConfig config, PrintWriter out) {
    Pipeline p = config.pipeline();
    out.println("pipeline " + p.name() + " (" + p.source() + ")" + (config.isSet(Setting.SCOPE)
        ? ", every table in namespace " + config.describe().get(Setting.SCOPE) : ""));
    for (FactFeed f : p.facts()) {
      feed(config, f, "fact feed", out);
      stream(config, p, f.raw().stream(), "raw archive " + f.raw().table() + ", quarantine "
          + p.shared().rejected() + rawRecord(f, p), out);
      stream(config, p, f.dedup().stream(), "one row per " + f.schema().keyList() + " in " + f.dedupTable()
          + ", watermark " + Times.show(f.dedupWatermark()), out);
      for (Aggregate a : f.aggregates()) {
        stream(config, p, a.name(), Times.show(a.rule().windows().size()) + " windows per "
            + names(a.rule().groupBy()) + " in " + a.table() + " (" + a.rule().schema().columnList() + "), "
            + a.rule().measures().stream().map(Object::toString).collect(Collectors.joining(", ")) + ", watermark "
            + Times.show(a.watermark()), out);
      }
    }
    for (DimensionFeed d : p.dimensions()) {
      feed(config, d, "dimension feed", out);
      out.println("    tracked attributes: " + names(d.dimension().attributes()) + "; a delete: "
          + (d.dimension().delete() == null ? "none declared" : d.dimension().delete().column() + " = "
          + d.dimension().delete().sql()));
      stream(config, p, d.raw().stream(), "raw archive " + d.raw().table() + ", quarantine " + p.shared().rejected()
          + rawRecord(d, p), out);
      stream(config, p, d.stream(), "SCD2 versions per " + d.schema().keyList() + " in " + d.table()
          + ", change log " + d.changes() + "; a change later than " + Times.show(d.watermark())
          + " is applied by the restatement", out);
    }
    out.println("shared tables: " + p.shared().all().stream().map(TableName::toString)
        .collect(Collectors.joining(", ")));
    out.println("branches: streams write " + config.stagingBranch() + ", `tidemark publish` makes it "
        + config.publishedRef() + "'s");
  }

  private static void feed(TidemarkConfig config, Feed f, String kind, PrintWriter out) {
    FeedSchema s = f.schema();
    out.println(kind + " " + f.name() + ": lands under " + Lander.sourceUri(config.landingBucket(), "", f.name())
        .replace("s3a://", "s3://") + "arrival=NNNN/");
    out.println("    columns: " + s.columns().columns().stream().map(c -> c.name() + " " + c.type().fileName()
        + (s.isRequired(c) ? " (required)" : "")).collect(Collectors.joining(", ")));
    out.println("    key: " + s.keyList() + "; " + (f instanceof DimensionFeed ? "change time" : "event time") + ": "
        + s.eventTime());
    for (Expectation e : f.expectations()) {
      out.println("    expectation " + e.name() + ": " + e.rule() + " -> " + e.action().word()
          + (e.isRow() ? " (each row, in every stream of " + f.name() + ")" : " (each arrival, at publish)"));
    }
  }

  /** What a raw archive records of its feed's expectations, if it has any. */
  private static String rawRecord(Feed f, Pipeline p) {
    return f.expectations().isEmpty() ? "" : ", what each batch found of the expectations in "
        + p.shared().expectations();
  }

  private static void stream(TidemarkConfig config, Pipeline p, String name, String what, PrintWriter out) {
    out.println("  stream " + name + ": " + what);
    out.println("    checkpoint " + checkpoint(config, name));
  }

  private static String checkpoint(TidemarkConfig config, String stream) {
    String root = config.checkpointRoot();
    return (root.endsWith("/") ? root : root + "/") + stream;
  }

  private static String names(List<Column> columns) {
    return columns.stream().map(Column::name).collect(Collectors.joining(", "));
  }

  /** The same as JSON: the feeds with their tables, the streams with their checkpoints, the settings it used. */
  static ObjectNode json(TidemarkConfig config) {
    Pipeline p = config.pipeline();
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("pipeline", p.name());
    root.put("source", p.source());
    ArrayNode feeds = root.putArray("feeds");
    for (Feed f : p.feeds()) {
      ObjectNode n = feeds.addObject();
      n.put("name", f.name());
      n.put("kind", f instanceof FactFeed ? "fact" : "dimension");
      n.put("landing", Lander.sourceUri(config.landingBucket(), "", f.name()));
      ArrayNode columns = n.putArray("columns");
      for (Column c : f.schema().columns().columns()) {
        columns.addObject().put("name", c.name()).put("type", c.type().fileName())
            .put("required", f.schema().isRequired(c));
      }
      f.schema().key().forEach(c -> n.withArray("key").add(c.name()));
      n.put("time", f.schema().eventTime().name());
      ArrayNode expectations = n.putArray("expectations");
      for (Expectation e : f.expectations()) {
        expectations.addObject().put("name", e.name()).put("kind", e.kind().field()).put("rule", e.rule())
            .put("action", e.action().word());
      }
    }
    ArrayNode streams = root.putArray("streams");
    for (StreamDef s : p.streams()) {
      ObjectNode n = streams.addObject();
      n.put("name", s.name());
      n.put("kind", s.kind().name().toLowerCase(java.util.Locale.ROOT));
      n.put("feed", s.feed().name());
      s.tables(p.shared()).forEach(t -> n.withArray("tables").add(t.toString()));
      n.put("checkpoint", checkpoint(config, s.name()));
      if (s.watermark() != null) {
        n.put("watermark", Times.show(s.watermark()));
      }
    }
    ArrayNode tables = root.putArray("tables");
    p.tables().forEach(t -> tables.add(t.toString()));
    ObjectNode shared = root.putObject("shared_tables");
    shared.put("rejected", p.shared().rejected().toString());
    shared.put("stream_batches", p.shared().streamBatches().toString());
    shared.put("restatement_log", p.shared().restatementLog().toString());
    shared.put("restatement_plan", p.shared().restatementPlan().toString());
    shared.put("audit_checks", p.shared().auditChecks().toString());
    shared.put("expectations", p.shared().expectations().toString());
    ObjectNode settings = root.putObject("settings");
    settings.put("landing_bucket", config.landingBucket());
    settings.put("checkpoint_root", config.checkpointRoot());
    settings.put("staging_branch", config.stagingBranch());
    settings.put("published_branch", config.publishedRef());
    return root;
  }
}
