package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.date_format;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.tidemark.config.Tables;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2ChangeLog;
import io.tidemark.stream.Scd2Difference;
import java.util.Map;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The write step: the corrections onto the branch (counts MERGE, dedup repair, late company changes and the
 * rebuilt history), then one restatement-log row per correction. Several commits: a write cut short leaves the
 * branch half written, which is why the write stage starts from the plan's commit again.
 */
final class CorrectionWriter {
  /** For the crash tests only: {@code restate:after-counts} halts the JVM between the counts and the dedup writes. */
  static final String CRASH_HOOK = "TIDEMARK_TEST_CRASH";

  private final SparkSession spark;
  private final Tables tables;
  private final String runId;

  CorrectionWriter(SparkSession spark, Tables tables, String runId) {
    this.spark = spark;
    this.tables = tables;
    this.runId = runId;
  }

  void write(String branch, CorrectionSet c) throws Exception {
    Map<String, String> props = Provenance.ofRestatement(runId);
    CommitMetadata.withCommitProperties(props, () -> {
      if (!c.counts().isEmpty()) {
        c.counts().createOrReplaceTempView("tidemark_restate_counts");
        spark.sql("MERGE INTO " + tables.eventCounts().sqlAt(branch) + " t USING tidemark_restate_counts s "
            + "ON t.company_id = s.company_id AND t.w_start = s.w_start "
            + "WHEN MATCHED THEN UPDATE SET t.n = s.new_n "
            + "WHEN NOT MATCHED THEN INSERT (company_id, w_start, n) VALUES (s.company_id, s.w_start, s.new_n)");
      }
      crashIfAsked("after-counts");
      if (!c.events().isEmpty()) {
        c.events().createOrReplaceTempView("tidemark_restate_events");
        String target = tables.events().sqlAt(branch);
        spark.sql("MERGE INTO " + target + " t USING (SELECT DISTINCT event_id FROM tidemark_restate_events) s "
            + "ON t.event_id = s.event_id WHEN MATCHED THEN DELETE");
        spark.sql("INSERT INTO " + target + " SELECT event_id, company_id, amount, event_ts FROM tidemark_restate_events");
      }
      if (!c.companies().isEmpty()) {
        String log = tables.companyChanges().sqlAt(branch);
        String dim = tables.companies().sqlAt(branch);
        Scd2ChangeLog.append(c.changes(), log);
        Dataset<Row> keys = spark.createDataset(c.companies(), Encoders.STRING()).toDF("company_id");
        Dataset<Row> diff = Scd2Difference.forCompanies(keys, log, dim).persist();
        if (!diff.isEmpty()) {
          Scd2Difference.merge(diff, dim);
        }
        diff.unpersist();
      }
      logCorrections(branch, c);
      return null;
    }, Exception.class);
  }

  /** One restatement-log row per correction: what, where, old value, new value. */
  private void logCorrections(String branch, CorrectionSet c) {
    String ts = "yyyy-MM-dd HH:mm:ss";
    Dataset<Row> w = c.counts().select(lit(tables.eventCounts().toString()).as("target_table"),
        when(col("old_n").isNull(), lit("window_insert")).otherwise(lit("window_recount")).as("correction"),
        concat_ws("|", col("company_id"), date_format(col("w_start"), ts)).as("key"),
        col("old_n").cast("string").as("old_value"), col("new_n").cast("string").as("new_value"));
    Dataset<Row> e = c.events().select(lit(tables.events().toString()).as("target_table"),
        when(col("old_rows").equalTo(0), lit("event_added"))
            .when(col("old_rows").gt(1), lit("duplicates_removed")).otherwise(lit("event_replaced")).as("correction"),
        col("event_id").cast("string").as("key"), concat_ws(" ", col("old_rows").cast("string"), lit("row(s)"))
            .as("old_value"),
        concat_ws("|", col("company_id"), col("amount").cast("string"), date_format(col("event_ts"), ts)).as("new_value"));
    Dataset<Row> ch = c.changes().select(lit(tables.companies().toString()).as("target_table"),
        lit("scd2_late_change").as("correction"),
        concat_ws("@", col("company_id"), date_format(col("change_ts"), ts)).as("key"), lit(null).cast("string")
            .as("old_value"),
        when(col("deleted"), lit("deleted")).otherwise(concat_ws("|", col("name"), col("tier"))).as("new_value"));
    try {
      w.unionByName(e).unionByName(ch)
          .select(lit(runId).as("run_id"), lit(branch).as("branch"), col("target_table"), col("correction"),
              col("key"), col("old_value"), col("new_value"), current_timestamp().as("corrected_at"))
          .writeTo(tables.restatementLog().sqlAt(branch)).append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException ex) {
      throw new RestatementException("no table " + tables.restatementLog() + " on " + branch + ": run `tidemark bootstrap`");
    }
  }

  private static void crashIfAsked(String point) {
    if (("restate:" + point).equals(System.getenv(CRASH_HOOK))) {
      System.err.println("tidemark: " + CRASH_HOOK + " halts the JVM " + point);
      System.err.flush();
      Runtime.getRuntime().halt(137);
    }
  }
}
