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
    return defaultSource(config, Dataset.EVENTS);
  }

  public static String defaultSource(TidemarkConfig config, Dataset dataset) {
    return "s3a://" + config.landingBucket() + "/" + dataset.dir() + "/";
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

  public static RunReport rawCompanies(SparkSession spark, TidemarkConfig config) {
    return RawArchive.companies(spark, defaultSource(config, Dataset.COMPANIES), config.tables().rawCompanyChanges(),
        config.tables().rejected(), defaultCheckpoint(config, RawArchive.COMPANIES));
  }

  public static RunReport scd2(SparkSession spark, TidemarkConfig config) {
    return Scd2Upsert.run(spark, defaultSource(config, Dataset.COMPANIES), config.tables().companies(),
        config.tables().companyChanges(), defaultCheckpoint(config, Scd2Upsert.NAME), config.scd2Watermark());
  }

  /**
   * One availableNow run of each stream: the raw archives first, so that nothing is lost if a later one fails;
   * a dataset that has not landed yet is skipped.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    List<RunReport> reports = new java.util.ArrayList<>();
    if (landed(spark, defaultSource(config, Dataset.EVENTS))) {
      reports.addAll(List.of(raw(spark, config), dedup(spark, config), counts(spark, config)));
    }
    if (landed(spark, defaultSource(config, Dataset.COMPANIES))) {
      reports.addAll(List.of(rawCompanies(spark, config), scd2(spark, config)));
    }
    return reports;
  }

  private static boolean landed(SparkSession spark, String source) {
    try {
      Preflight.requireSource(spark, source);
      return true;
    } catch (StreamException e) {
      return false;
    }
  }
}
