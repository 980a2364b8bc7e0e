package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Feed;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.land.Lander;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;

/**
 * One stream as it runs: what it reads, the tables it writes, where it keeps its checkpoint, and its delays.
 * {@link #of} builds it from the configuration (the one place that knows the default source and checkpoint of a
 * stream); the {@code with...} methods lay command-line overrides on top. {@code table} is the table whose
 * commits carry the stream's watermark; {@code sideTable} the second table it writes: the quarantine of a raw
 * archive, the change log of the SCD2 dimension, null for the others. {@code watermark} is null for the raw
 * archives (they have none), {@code window} null but for the windowed counts. {@code batches} is the table each run's
 * micro-batches are recorded in ({@link StreamBatches}); {@code archive} the raw archive of the stream's feed, whose
 * columns declare the feed when a run starts ({@link FeedDeclarations}).
 */
public record StreamSpec(StreamKind kind, String source, TableName table, TableName sideTable, String checkpoint,
                         Duration watermark, Duration window, TableName batches, TableName archive) {

  public StreamSpec {
    Objects.requireNonNull(kind);
    Objects.requireNonNull(source);
    Objects.requireNonNull(table);
    Objects.requireNonNull(checkpoint);
    Objects.requireNonNull(batches);
    Objects.requireNonNull(archive);
  }

  /** The stream as configured: landing zone, tables, checkpoint root and delays from {@code config}. */
  public static StreamSpec of(StreamKind kind, TidemarkConfig config) {
    Tables t = config.tables();
    String source = Lander.sourceUri(config.landingBucket(), "", kind.dataset());
    String root = config.checkpointRoot();
    String checkpoint = (root.endsWith("/") ? root : root + "/") + kind.streamName();
    TableName batches = t.streamBatches();
    TableName archive = kind.dataset() == Feed.EVENTS ? t.rawEvents() : t.rawCompanyChanges();
    return switch (kind) {
      case RAW -> new StreamSpec(kind, source, t.rawEvents(), t.rejected(), checkpoint, null, null, batches,
          archive);
      case DEDUP -> new StreamSpec(kind, source, t.events(), null, checkpoint, config.dedupWatermark(), null,
          batches, archive);
      case COUNTS -> new StreamSpec(kind, source, t.eventCounts(), null, checkpoint, config.countsWatermark(),
          config.countsWindow(), batches, archive);
      case RAW_COMPANIES -> new StreamSpec(kind, source, t.rawCompanyChanges(), t.rejected(), checkpoint, null,
          null, batches, archive);
      case SCD2 -> new StreamSpec(kind, source, t.companies(), t.companyChanges(), checkpoint,
          config.scd2Watermark(), null, batches, archive);
    };
  }

  /** Every stream as configured, in the order {@code stream all} runs them. */
  public static List<StreamSpec> all(TidemarkConfig config) {
    return Arrays.stream(StreamKind.values()).map(k -> of(k, config)).toList();
  }

  public String name() {
    return kind.streamName();
  }

  /** Another source, or this one when {@code source} is null. */
  public StreamSpec withSource(String source) {
    return source == null ? this
        : new StreamSpec(kind, source, table, sideTable, checkpoint, watermark, window, batches, archive);
  }

  public StreamSpec withTable(TableName table) {
    return table == null ? this
        : new StreamSpec(kind, source, table, sideTable, checkpoint, watermark, window, batches, archive);
  }

  public StreamSpec withSideTable(TableName sideTable) {
    return sideTable == null ? this
        : new StreamSpec(kind, source, table, sideTable, checkpoint, watermark, window, batches, archive);
  }

  public StreamSpec withCheckpoint(String checkpoint) {
    return checkpoint == null ? this
        : new StreamSpec(kind, source, table, sideTable, checkpoint, watermark, window, batches, archive);
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
    if (kind == StreamKind.DEDUP || kind == StreamKind.COUNTS) {
      // their state (the ids seen, the open windows) is in the checkpoint alone: never started over on a lost one
      LostCheckpoint.refuse(spark, name(), checkpoint, table);
    }
    return switch (kind) {
      case RAW -> RawArchive.run(spark, source, table, sideTable, checkpoint, crash);
      case RAW_COMPANIES -> RawArchive.companies(spark, source, table, sideTable, checkpoint, crash);
      case DEDUP -> Dedup.run(spark, source, table, checkpoint, watermark, Dedup.Mode.WITHIN_WATERMARK, crash,
          declared(spark));
      case COUNTS -> WindowedCounts.run(spark, source, table, checkpoint,
          new WindowedCounts.Options(watermark, window), crash);
      case SCD2 -> Scd2Upsert.run(spark, source, table, sideTable, checkpoint, watermark, crash, declared(spark));
    };
  }

  /** The stream's feed as its raw archive declares it now: read at the start of each run. */
  private FeedSchema declared(SparkSession spark) {
    return FeedDeclarations.read(spark, archive.toString(), kind.dataset());
  }
}
