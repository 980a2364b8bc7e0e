package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Windows;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.testing.Seed;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * The streams as the seeds' course pages specify them, one availableNow run each: dedup remembering an id for 30
 * minutes, counts in 5-minute windows finalized by a 10-minute watermark. Written out here rather than taken from
 * the seed's pipeline file, so that a change of the file shows up as a test that no longer holds the contract.
 */
final class SeedContract {
  /** The seed's counts with the course's window and watermark. */
  static final Aggregate COUNTS = new Aggregate(Seed.WINDOWED_COUNTS, Seed.EVENTS.name(),
      Seed.COUNTS_AGGREGATE.table(), Duration.ofMinutes(10), new Aggregation(new Windows(Duration.ofMinutes(5)),
      Seed.COUNTS.groupBy(), Seed.COUNTS.windowStart(), Seed.COUNTS.measures()));

  private SeedContract() {}

  static RunReport raw(SparkSession spark, String source, TableName raw, TableName rejected, String checkpoint) {
    return RawArchive.run(spark, Seed.RAW, Seed.EVENTS, source, raw, rejected, checkpoint, CrashPoints.NONE);
  }

  static RunReport dedup(SparkSession spark, String source, String table, String checkpoint) {
    return Dedup.run(spark, Seed.DEDUP, source, TableName.parse(table), checkpoint, Duration.ofMinutes(30),
        Dedup.Mode.WITHIN_WATERMARK, CrashPoints.NONE, Seed.EVENTS);
  }

  static RunReport counts(SparkSession spark, String source, String table, String checkpoint) {
    return WindowedAggregate.run(spark, COUNTS, Seed.EVENTS, source, TableName.parse(table), checkpoint,
        CrashPoints.NONE);
  }
}
