package io.tidemark.testing;

import org.apache.spark.sql.SparkSession;

/**
 * A local Spark without services, for the unit tests that hold a Spark plan to the core's rule it implements
 * (the property tests over generated rows): one session per test JVM, started on first use.
 */
public final class LocalSpark {
  private static SparkSession spark;

  private LocalSpark() {}

  public static synchronized SparkSession get() {
    if (spark == null || spark.sparkContext().isStopped()) {
      spark = SparkSession.builder().master("local[2]").appName("tidemark-unit")
          .config("spark.ui.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .getOrCreate();
    }
    return spark;
  }
}
