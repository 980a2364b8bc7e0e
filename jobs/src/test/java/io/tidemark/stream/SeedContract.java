package io.tidemark.stream;

import io.tidemark.config.TableName;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * The streams as the seeds' course pages specify them, one availableNow run each: dedup remembering an id for 30
 * minutes, counts in 5-minute windows finalized by a 10-minute watermark. Written out here rather than taken from
 * the settings' defaults, so that a change of a default shows up as a test that no longer holds the contract.
 */
final class SeedContract {
  private SeedContract() {}

  static RunReport dedup(SparkSession spark, String source, String table, String checkpoint) {
    return Dedup.run(spark, source, TableName.parse(table), checkpoint, Duration.ofMinutes(30),
        Dedup.Mode.WITHIN_WATERMARK);
  }

  static RunReport counts(SparkSession spark, String source, String table, String checkpoint) {
    return WindowedCounts.run(spark, source, TableName.parse(table), checkpoint,
        new WindowedCounts.Options(Duration.ofMinutes(10), Duration.ofMinutes(5)));
  }
}
