package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.land.Lander;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.Declarations;
import io.tidemark.pipeline.StreamDef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;

/**
 * One stream as it runs: its declaration in the pipeline ({@link StreamDef}: its kind, name, feed, aggregate), what it
 * reads, the tables it writes, where it keeps its checkpoint. {@link #of} builds it from the configuration (the one
 * place that knows the default source and checkpoint of a stream); the {@code with...} methods lay command-line
 * overrides on top. {@code table} is the table whose commits carry the stream's watermark; {@code sideTable} the second
 * table it writes: the quarantine of a raw archive, the change log of an SCD2 dimension, null for the others.
 * {@code batches} is the table each run's micro-batches are recorded in ({@link StreamBatches}); {@code archive} the raw
 * archive of the stream's feed, whose columns declare the fields promoted into the feed when a run starts
 * ({@link FeedDeclarations}).
 */
public record StreamSpec(StreamDef def, String source, TableName table, TableName sideTable, String checkpoint,
                         TableName batches, TableName archive, Map<String, String> declared,
                         Map<String, String> sideDeclared) {

  public StreamSpec {
    Objects.requireNonNull(def);
    Objects.requireNonNull(source);
    Objects.requireNonNull(table);
    Objects.requireNonNull(checkpoint);
    Objects.requireNonNull(batches);
    Objects.requireNonNull(archive);
  }

  /** The stream as configured: landing zone, tables and checkpoint root from {@code config}. */
  public static StreamSpec of(StreamDef def, TidemarkConfig config) {
    Pipeline p = config.pipeline();
    String source = Lander.sourceUri(config.landingBucket(), "", def.feed().name());
    String root = config.checkpointRoot();
    String checkpoint = (root.endsWith("/") ? root : root + "/") + def.name();
    TableName side = switch (def.kind()) {
      case RAW -> p.shared().rejected();
      case SCD2 -> ((DimensionFeed) def.feed()).changes();
      default -> null;
    };
    Map<TableName, Declarations.Declared> declared = Declarations.of(p);
    return new StreamSpec(def, source, def.table(), side, checkpoint, p.shared().streamBatches(),
        def.feed().raw().table(), parts(declared, def.table()), side == null ? Map.of() : parts(declared, side));
  }

  private static Map<String, String> parts(Map<TableName, Declarations.Declared> declared, TableName t) {
    return declared.containsKey(t) ? declared.get(t).parts() : Map.of();
  }

  /** The stream of that name in the configured pipeline. */
  public static StreamSpec of(String name, TidemarkConfig config) {
    return of(config.pipeline().stream(name), config);
  }

  /** Every stream as configured, in the order {@code stream all} runs them. */
  public static List<StreamSpec> all(TidemarkConfig config) {
    return config.pipeline().streams().stream().map(d -> of(d, config)).toList();
  }

  public String name() {
    return def.name();
  }

  public StreamDef.Kind kind() {
    return def.kind();
  }

  /** The delay of its watermark; null for a raw archive. */
  public Duration watermark() {
    return def.watermark();
  }

  /** Another source, or this one when {@code source} is null. */
  public StreamSpec withSource(String source) {
    return source == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches, archive,
        declared, sideDeclared);
  }

  /** Another table (for a raw archive, the archive the feed is declared by too). */
  public StreamSpec withTable(TableName table) {
    return table == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches,
        def.kind() == StreamDef.Kind.RAW ? table : archive, declared, sideDeclared);
  }

  public StreamSpec withSideTable(TableName sideTable) {
    return sideTable == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches, archive,
        declared, sideDeclared);
  }

  public StreamSpec withCheckpoint(String checkpoint) {
    return checkpoint == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches, archive,
        declared, sideDeclared);
  }

  /** The duration in a run's report of recording its micro-batches. */
  public static final String RECORD = "record";

  /**
   * One availableNow run of the stream, its micro-batches then recorded ({@link StreamBatches}); the time the
   * record took is the report's duration {@link #RECORD}.
   */
  public RunReport run(SparkSession spark) {
    return run(spark, CrashPoints.NONE);
  }

  /** The same, halting at {@code crash}'s points of its batches. */
  public RunReport run(SparkSession spark, CrashPoints crash) {
    RunReport report = runUnrecorded(spark, crash);
    long t0 = System.nanoTime();
    StreamBatches.append(spark, this, report);
    report.durationsMs().put(RECORD, (System.nanoTime() - t0) / 1_000_000);
    return report;
  }

  /** The run alone; its batches are for the caller to record. */
  RunReport runUnrecorded(SparkSession spark, CrashPoints crash) {
    try {
      return runOnce(spark, crash);
    } catch (RuntimeException e) {
      throw BrokenCheckpoint.explain(name(), checkpoint, e);
    }
  }

  private RunReport runOnce(SparkSession spark, CrashPoints crash) {
    Preflight.requireDeclared(spark, table, declared);
    if (sideTable != null) {
      Preflight.requireDeclared(spark, sideTable, sideDeclared);
    }
    if (def.kind() == StreamDef.Kind.DEDUP || def.kind() == StreamDef.Kind.AGGREGATE) {
      // their state (the keys seen, the open windows) is in the checkpoint alone: never started over on a lost one
      LostCheckpoint.refuse(spark, name(), checkpoint, table);
    }
    return switch (def.kind()) {
      case RAW -> RawArchive.run(spark, name(), declared(spark), source, table, sideTable, checkpoint, crash);
      case DEDUP -> Dedup.run(spark, name(), source, table, checkpoint, watermark(), Dedup.Mode.WITHIN_WATERMARK,
          crash, declared(spark));
      case AGGREGATE -> WindowedAggregate.run(spark, def.aggregate(), def.feed().schema(), source, table,
          checkpoint, crash);
      case SCD2 -> Scd2Upsert.run(spark, name(), source, table, sideTable, checkpoint, watermark(), crash,
          declaredDimension(spark));
    };
  }

  /** The stream's feed as its raw archive declares it now: read at the start of each run. */
  private FeedSchema declared(SparkSession spark) {
    return FeedDeclarations.read(spark, archive.toString(), def.feed().schema());
  }

  private DimensionSchema declaredDimension(SparkSession spark) {
    return FeedDeclarations.read(spark, archive.toString(), ((DimensionFeed) def.feed()).dimension());
  }
}
