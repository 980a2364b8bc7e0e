package io.tidemark.lakehouse;

import java.util.Arrays;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The shape of each kind of row tidemark keeps, defined once. The tables' definitions ({@link TableCatalog}),
 * the landed lines' formats, the SCD2 change record and the restatement's and audit's rows are built from these.
 */
public final class Schemas {
  /** An event as it lands. */
  public static final StructType EVENT =
      StructType.fromDDL("event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP");
  /** A company change as it lands and as the SCD2 change log keeps it; a delete has {@code deleted} true. */
  public static final StructType COMPANY_CHANGE =
      StructType.fromDDL("company_id STRING, name STRING, tier STRING, change_ts TIMESTAMP, deleted BOOLEAN");
  /** Where and when a raw row came in: appended to every row of the raw archives and the quarantine. */
  public static final StructType INGEST =
      StructType.fromDDL("source_file STRING, arrival INT, batch_id BIGINT, ingest_ts TIMESTAMP");
  /** A quarantined line: its dataset, the line itself and why it was rejected (then {@link #INGEST}). */
  public static final StructType REJECTED_LINE = StructType.fromDDL("dataset STRING, line STRING, reason STRING");
  /** A version of a company in the SCD2 dimension. */
  public static final StructType COMPANY_VERSION = StructType.fromDDL(
      "company_id STRING, name STRING, tier STRING, valid_from TIMESTAMP, valid_to TIMESTAMP, is_current BOOLEAN");
  /** Events per company and event-time window. */
  public static final StructType WINDOW_COUNT = StructType.fromDDL("company_id STRING, w_start TIMESTAMP, n BIGINT");
  /** One correction of a restatement run. */
  public static final StructType CORRECTION = StructType.fromDDL("run_id STRING, branch STRING, "
      + "target_table STRING, correction STRING, key STRING, old_value STRING, new_value STRING, "
      + "corrected_at TIMESTAMP");
  /**
   * A restatement's plan: one row per correction it will make, of one kind: {@code window} (company_id, w_start,
   * old_n, new_n), {@code event} (the event's first occurrence, and old_rows: the rows the events table holds for
   * its id) or {@code change} (a late company change).
   */
  public static final StructType PLANNED_CORRECTION = StructType.fromDDL("run_id STRING, branch STRING, "
      + "attempt INT, kind STRING, company_id STRING, w_start TIMESTAMP, old_n BIGINT, new_n BIGINT, event_id INT, "
      + "amount DOUBLE, event_ts TIMESTAMP, old_rows BIGINT, name STRING, tier STRING, change_ts TIMESTAMP, "
      + "deleted BOOLEAN");
  /**
   * One micro-batch of a stream's run, as Spark's progress and the batch's commits tell it (see
   * {@link io.tidemark.stream.BatchRecord}): which arrivals it read, rows in, written (per table, with the snapshot
   * of each commit), quarantined and dropped, state, watermark and event times, and where the time went.
   */
  public static final StructType STREAM_BATCH = StructType.fromDDL("stream STRING, query_id STRING, "
      + "run_id STRING, batch_id BIGINT, arrival INT, arrivals STRING, started_at TIMESTAMP, ended_at TIMESTAMP, "
      + "input_rows BIGINT, rows_written MAP<STRING, BIGINT>, rows_quarantined BIGINT, late_rows_dropped BIGINT, "
      + "late_unit STRING, duplicates_dropped BIGINT, state_rows BIGINT, state_bytes BIGINT, "
      + "watermark_before TIMESTAMP, watermark_after TIMESTAMP, event_time_min TIMESTAMP, event_time_max TIMESTAMP, "
      + "duration_ms BIGINT, planning_ms BIGINT, work_ms BIGINT, commit_ms BIGINT, snapshots MAP<STRING, BIGINT>, "
      + "replayed_tables ARRAY<STRING>, recovered BOOLEAN");
  /** What an audit check says (the audit table adds {@code checked_at}). */
  public static final StructType AUDIT_CHECK = StructType.fromDDL("run_id STRING, branch STRING, "
      + "check_name STRING, target_table STRING, passed BOOLEAN, detail STRING");

  private Schemas() {}

  /** The fields of {@code first}, then those of each of {@code more}. */
  public static StructType concat(StructType first, StructType... more) {
    StructType out = first;
    for (StructType s : more) {
      for (StructField f : s.fields()) {
        out = out.add(f);
      }
    }
    return out;
  }

  /** The column names, comma separated, for SQL. */
  public static String columnList(StructType schema) {
    return String.join(", ", schema.fieldNames());
  }

  /** The column names as Spark columns, for a select. */
  public static org.apache.spark.sql.Column[] columns(StructType schema) {
    return Arrays.stream(schema.fieldNames()).map(org.apache.spark.sql.functions::col)
        .toArray(org.apache.spark.sql.Column[]::new);
  }
}
