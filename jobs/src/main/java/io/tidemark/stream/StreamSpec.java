package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.land.Lander;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.ExpectationVersions;
import io.tidemark.pipeline.PipelineException;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.Declarations;
import io.tidemark.pipeline.StreamDef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * One stream as it runs: its declaration in the pipeline ({@link StreamDef}: its kind, name, feed, aggregate), what it
 * reads, the tables it writes, where it keeps its checkpoint. {@link #of} builds it from the configuration (the one
 * place that knows the default source and checkpoint of a stream); the {@code with...} methods lay command-line
 * overrides on top. {@code table} is the table whose commits carry the stream's watermark; {@code sideTable} the second
 * table it writes: the quarantine of a raw archive, the change log of an SCD2 dimension, null for the others.
 * {@code batches} is the table each run's micro-batches are recorded in ({@link StreamBatches}); {@code archive} the raw
 * archive of the stream's feed, whose columns declare the fields promoted into the feed when a run starts
 * ({@link FeedDeclarations}) and whose properties keep the versions of the feed's expectations; {@code expectations}
 * the table a raw archive records what each batch found of them in.
 */
public record StreamSpec(StreamDef def, String source, TableName table, TableName sideTable, String checkpoint,
                         TableName batches, TableName archive, Map<String, String> declared,
                         Map<String, String> sideDeclared, TableName expectations) {

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
        def.feed().raw().table(), parts(declared, def.table()), side == null ? Map.of() : parts(declared, side),
        p.shared().expectations());
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
        declared, sideDeclared, expectations);
  }

  /** Another table (for a raw archive, the archive the feed is declared by too). */
  public StreamSpec withTable(TableName table) {
    return table == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches,
        def.kind() == StreamDef.Kind.RAW ? table : archive, declared, sideDeclared, expectations);
  }

  public StreamSpec withSideTable(TableName sideTable) {
    return sideTable == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches, archive,
        declared, sideDeclared, expectations);
  }

  public StreamSpec withCheckpoint(String checkpoint) {
    return checkpoint == null ? this : new StreamSpec(def, source, table, sideTable, checkpoint, batches, archive,
        declared, sideDeclared, expectations);
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
    // the feed as its raw archive declares it now, and the expectations it recorded: read at the start of each run
    Table archived = FeedDeclarations.archive(spark, archive.toString());
    FeedSchema declared = archived == null ? def.feed().schema() : FeedDeclarations.of(archived, def.feed().schema());
    Judgement judgement = judgement(archived, declared);
    return switch (def.kind()) {
      case RAW -> RawArchive.run(spark, name(), declared, judgement, source, table, sideTable, expectations, checkpoint,
          crash);
      case DEDUP -> Dedup.run(spark, name(), source, table, checkpoint, watermark(), Dedup.Mode.WITHIN_WATERMARK,
          crash, declared, judgement);
      case AGGREGATE -> WindowedAggregate.run(spark, def.aggregate(), def.feed().schema(), judgement, source, table,
          checkpoint, crash);
      case SCD2 -> Scd2Upsert.run(spark, name(), source, table, sideTable, checkpoint, watermark(), crash,
          archived == null ? ((DimensionFeed) def.feed()).dimension()
              : FeedDeclarations.of(archived, ((DimensionFeed) def.feed()).dimension()), judgement);
    };
  }

  /**
   * How the stream judges its feed's lines: by the expectations the raw archive recorded, each version from its
   * arrival on ({@link ExpectationVersions}); by the file's alone when nothing was recorded (a table made without
   * bootstrap). A file whose expectations differ from the newest recorded version stops the stream in one line until
   * bootstrap has recorded them: every stream of the feed must judge an arrival by the same version.
   */
  private Judgement judgement(Table archived, FeedSchema declared) {
    return Judgement.of(recorded(archived, def.feed(), archive.toString()), declared, def.feed().identity());
  }

  /**
   * The versions of a feed's expectations its raw archive recorded ({@code archived}, null when there is none yet);
   * the file's alone when nothing was recorded (a table made without bootstrap). A file whose expectations differ from
   * the newest recorded version is refused in one line until bootstrap has recorded them: every stream of the feed
   * must judge an arrival by the same version.
   */
  static ExpectationVersions recorded(Table archived, io.tidemark.pipeline.Feed feed, String table) {
    java.util.List<Expectation> file = feed.expectations();
    String recorded = archived == null ? null : archived.properties().get(ExpectationVersions.PROPERTY);
    ExpectationVersions versions = recorded == null ? ExpectationVersions.first(file)
        : ExpectationVersions.parse(recorded, table);
    if (!versions.latest().declares(file)) {
      throw new PipelineException("the pipeline file changed the expectations of " + feed.name() + " since "
          + "bootstrap recorded them (" + versions.latest().label() + "): run tidemark bootstrap, which records them "
          + "to judge the arrivals from the next one on (docs/pipeline.md#expectations)");
    }
    return versions;
  }

  /** Every feed's recorded expectations against the file's, before any stream starts ({@link #recorded}). */
  static void requireRecorded(SparkSession spark, io.tidemark.pipeline.Pipeline p) {
    for (io.tidemark.pipeline.Feed f : p.feeds()) {
      recorded(FeedDeclarations.archive(spark, f.raw().table().toString()), f, f.raw().table().toString());
    }
  }
}
