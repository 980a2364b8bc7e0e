package io.tidemark.stream;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Dataset;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** The event streams with their configured sources, tables and checkpoints: what `stream all` runs. */
public final class Streams {
  private Streams() {}

  /** Where the events land, as Spark reads it. */
  public static String defaultSource(TidemarkConfig config) {
    return "s3a://" + config.landingBucket() + "/" + Dataset.EVENTS.dir() + "/";
  }

  /** The checkpoint of a stream under the checkpoint root. */
  public static String defaultCheckpoint(TidemarkConfig config, String stream) {
    String root = config.checkpointRoot();
    return (root.endsWith("/") ? root : root + "/") + stream;
  }

  public static RunReport raw(SparkSession spark, TidemarkConfig config) {
    return RawArchive.run(spark, defaultSource(config), config.tables().rawEvents(), config.tables().rejected(),
        defaultCheckpoint(config, RawArchive.NAME));
  }

  public static RunReport dedup(SparkSession spark, TidemarkConfig config) {
    return Dedup.run(spark, defaultSource(config), config.tables().events(),
        defaultCheckpoint(config, Dedup.NAME), config.dedupWatermark(), Dedup.Mode.WITHIN_WATERMARK);
  }

  public static RunReport counts(SparkSession spark, TidemarkConfig config) {
    return WindowedCounts.run(spark, defaultSource(config), config.tables().eventCounts(),
        defaultCheckpoint(config, WindowedCounts.NAME),
        new WindowedCounts.Options(config.countsWatermark(), config.countsWindow()));
  }

  /** One availableNow run of each event stream: the raw archive first, so nothing is lost if a later one fails. */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    return List.of(raw(spark, config), dedup(spark, config), counts(spark, config));
  }
}
