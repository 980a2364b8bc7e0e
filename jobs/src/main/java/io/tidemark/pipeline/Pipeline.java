package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Shapes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A pipeline as its file declares it ({@link PipelineFile}): its fact feeds and dimension feeds, each with its tables
 * and streams, and the tables they share. Everything tidemark runs (landing, the streams, publish and its checks, the
 * restatement, evolve, maintenance, the report) takes the feeds, tables and streams from here.
 *
 * @param name the pipeline's name
 * @param source where it was read from (a path, or the seed's resource), for messages
 */
public record Pipeline(String name, String source, List<FactFeed> facts, List<DimensionFeed> dimensions,
                       SharedTables shared) {
  public Pipeline {
    facts = List.copyOf(facts);
    dimensions = List.copyOf(dimensions);
  }

  /** Every feed: the fact feeds, then the dimension feeds, in the file's order. */
  public List<Feed> feeds() {
    List<Feed> out = new ArrayList<>(facts);
    out.addAll(dimensions);
    return out;
  }

  public Optional<Feed> findFeed(String name) {
    return feeds().stream().filter(f -> f.name().equals(name)).findFirst();
  }

  /** The feed of that name; an error naming the pipeline's feeds. */
  public Feed feed(String name) {
    return findFeed(name).orElseThrow(() -> new IllegalArgumentException("the pipeline " + this.name + " has no "
        + "feed '" + name + "' (its feeds: " + String.join(", ", feeds().stream().map(Feed::name).toList()) + ")"));
  }

  public List<Aggregate> aggregates() {
    return facts.stream().flatMap(f -> f.aggregates().stream()).toList();
  }

  /**
   * Every stream, in the order {@code stream all} starts them: per fact feed its raw archive, its dedup and its
   * aggregates; per dimension feed its raw archive and its SCD2 stream.
   */
  public List<StreamDef> streams() {
    List<StreamDef> out = new ArrayList<>();
    for (FactFeed f : facts) {
      out.add(new StreamDef(StreamDef.Kind.RAW, f.raw().stream(), f, null));
      out.add(new StreamDef(StreamDef.Kind.DEDUP, f.dedup().stream(), f, null));
      f.aggregates().forEach(a -> out.add(new StreamDef(StreamDef.Kind.AGGREGATE, a.name(), f, a)));
    }
    for (DimensionFeed d : dimensions) {
      out.add(new StreamDef(StreamDef.Kind.RAW, d.raw().stream(), d, null));
      out.add(new StreamDef(StreamDef.Kind.SCD2, d.stream(), d, null));
    }
    return out;
  }

  public Optional<StreamDef> findStream(String name) {
    return streams().stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The stream of that name; an error naming the pipeline's streams. */
  public StreamDef stream(String name) {
    return findStream(name).orElseThrow(() -> new IllegalArgumentException("the pipeline " + this.name
        + " has no stream '" + name + "' (its streams: " + String.join(", ", streamNames()) + ")"));
  }

  public List<String> streamNames() {
    return streams().stream().map(StreamDef::name).toList();
  }

  /** The streams that read a feed. */
  public List<StreamDef> streamsOf(Feed feed) {
    return streams().stream().filter(s -> s.feed().name().equals(feed.name())).toList();
  }

  /** Every table: the feeds' in the file's order, then the shared ones. */
  public List<TableName> tables() {
    List<TableName> out = new ArrayList<>();
    for (FactFeed f : facts) {
      out.add(f.raw().table());
      out.add(f.dedupTable());
      f.aggregates().forEach(a -> out.add(a.table()));
    }
    for (DimensionFeed d : dimensions) {
      out.add(d.raw().table());
      out.add(d.table());
      out.add(d.changes());
    }
    out.addAll(shared.all());
    return out;
  }

  /**
   * What names this pipeline among pipelines that share a catalog, in the commits it makes (publish, restatement):
   * its first feed's raw archive.
   */
  public String identity() {
    return rawTables().get(0).toString();
  }

  /** The raw archives, one per feed. */
  public List<TableName> rawTables() {
    return feeds().stream().map(f -> f.raw().table()).toList();
  }

  /** The shapes as the file declares them (without the fields promoted since, which the catalog holds). */
  public Shapes shapes() {
    Map<String, Aggregation> aggregations = new LinkedHashMap<>();
    aggregates().forEach(a -> aggregations.put(a.name(), a.rule()));
    Map<String, FeedSchema> fact = new LinkedHashMap<>();
    facts.forEach(f -> fact.put(f.name(), f.schema()));
    Map<String, DimensionSchema> dims = new LinkedHashMap<>();
    dimensions.forEach(d -> dims.put(d.name(), d.dimension()));
    return new Shapes(aggregations, fact, dims);
  }

  /** The table each correction of a restatement lands in, by the name of its aggregate, fact feed or dimension. */
  public Map<String, String> correctedTables() {
    Map<String, String> out = new LinkedHashMap<>();
    aggregates().forEach(a -> out.put(a.name(), a.table().toString()));
    facts.forEach(f -> out.put(f.name(), f.dedupTable().toString()));
    dimensions.forEach(d -> out.put(d.name(), d.table().toString()));
    return out;
  }

  /**
   * The same pipeline with every table in one namespace of its own, {@code <namespace>.<its namespace>_<its name>}:
   * pipelines side by side on one catalog (the tests, the benchmarks; {@code TIDEMARK_SCOPE}).
   */
  public Pipeline scoped(String namespace) {
    UnaryOperator<TableName> in = t -> new TableName(namespace, t.namespace() + "_" + t.table());
    List<FactFeed> f = facts.stream().map(x -> new FactFeed(x.schema(), stage(x.raw(), in), stage(x.dedup(), in),
        x.dedupWatermark(), x.aggregates().stream().map(a -> new Aggregate(a.name(), a.feed(), in.apply(a.table()),
            a.watermark(), a.rule())).toList(), x.expectations())).toList();
    List<DimensionFeed> d = dimensions.stream().map(x -> new DimensionFeed(x.dimension(), stage(x.raw(), in),
        x.stream(), in.apply(x.table()), in.apply(x.changes()), x.watermark(), x.expectations())).toList();
    SharedTables s = new SharedTables(in.apply(shared.rejected()), in.apply(shared.streamBatches()),
        in.apply(shared.restatementLog()), in.apply(shared.restatementPlan()), in.apply(shared.auditChecks()),
        in.apply(shared.expectations()));
    return new Pipeline(name, source, f, d, s);
  }

  private static Feed.Stage stage(Feed.Stage s, UnaryOperator<TableName> in) {
    return new Feed.Stage(s.stream(), in.apply(s.table()));
  }
}
