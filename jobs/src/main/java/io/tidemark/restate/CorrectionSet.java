package io.tidemark.restate;

import io.tidemark.config.Tables;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The corrections of one attempt, worked out once and materialized: the windows to recount or insert, the
 * event_ids to repair, the company changes to apply (and the companies whose history they touch).
 */
record CorrectionSet(Dataset<Row> counts, Dataset<Row> events, Dataset<Row> changes, List<Row> windows,
                     long eventCount, long changeCount, List<String> companies) {

  /**
   * The corrections for the tables as they are at {@code ref} ({@code branch} or {@code branch#hash}), from the
   * raw archives as of {@code now}'s snapshots, for what became final since {@code previous}.
   */
  static CorrectionSet compute(SparkSession spark, Tables tables, String ref, Marks previous, Marks now,
                               Duration window) {
    Corrections corrections = new Corrections(spark, tables, ref, previous, now, window);
    // cut from their inputs: once written, recomputing them from the branch's head would find nothing to do
    Dataset<Row> counts = corrections.counts().localCheckpoint(true);
    Dataset<Row> events = corrections.dedup().localCheckpoint(true);
    Dataset<Row> changes = corrections.companyChanges().localCheckpoint(true);
    corrections.release();
    List<Row> windows = counts.orderBy("w_start", "company_id").collectAsList();
    List<String> companies = changes.select("company_id").distinct().as(Encoders.STRING()).collectAsList();
    return new CorrectionSet(counts, events, changes, windows, events.count(), changes.count(), companies);
  }

  boolean isEmpty() {
    return windows.isEmpty() && eventCount == 0 && changeCount == 0;
  }
}
