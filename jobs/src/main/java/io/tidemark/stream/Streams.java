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
   * One availableNow run of each stream, at once (see {@link ConcurrentRuns}): they read the landing zone
   * independently and write different tables; the two raw archives, which share the quarantine, run one after
   * the other. A failing stream stops none of the others, so the raw archives keep what landed even when a later
   * stream fails. A dataset that has not landed yet is skipped.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    List<ConcurrentRuns.Run> runs = new java.util.ArrayList<>();
    boolean events = landed(spark, defaultSource(config, Dataset.EVENTS));
    boolean companies = landed(spark, defaultSource(config, Dataset.COMPANIES));
    if (events) {
      runs.add(new ConcurrentRuns.Run(RawArchive.NAME, () -> raw(spark, config)));
      runs.add(new ConcurrentRuns.Run(Dedup.NAME, () -> dedup(spark, config)));
      runs.add(new ConcurrentRuns.Run(WindowedCounts.NAME, () -> counts(spark, config)));
    }
    if (companies) {
      runs.add(new ConcurrentRuns.Run(RawArchive.NAME, () -> rawCompanies(spark, config)));
      runs.add(new ConcurrentRuns.Run(Scd2Upsert.NAME, () -> scd2(spark, config)));
    }
    return ConcurrentRuns.run(spark, runs);
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
