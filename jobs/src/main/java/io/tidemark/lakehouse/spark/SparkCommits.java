package io.tidemark.lakehouse.spark;

import java.util.Map;
import org.apache.iceberg.spark.CommitMetadata;

/** Spark writes to Iceberg tables whose commits carry summary properties (a stream's provenance, a run's id). */
public final class SparkCommits {
  private SparkCommits() {}

  /** Runs {@code write} (an append, a MERGE) so that the snapshots it commits carry {@code summary}. */
  public static void withSummary(Map<String, String> summary, Runnable write) {
    CommitMetadata.withCommitProperties(summary, () -> {
      write.run();
      return null;
    }, RuntimeException.class);
  }
}
