package io.tidemark.lakehouse.spark;

import io.tidemark.core.AuditRecords;
import io.tidemark.core.BatchColumns;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.core.RestatementRecords;
import java.util.Arrays;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** The core's row shapes ({@code io.tidemark.core}: the feeds and every table built from them) as Spark's. */
public final class Schemas {
  /** Where and when a raw row came in: appended to every row of the raw archives and the quarantine. */
  public static final StructType INGEST = SparkRows.struct(Ingest.SCHEMA);
  /** A quarantined line: its dataset, the line itself and why it was rejected (then {@link #INGEST}). */
  public static final StructType REJECTED_LINE = SparkRows.struct(Quarantine.LINE_SCHEMA);
  /** One correction of a restatement run. */
  public static final StructType CORRECTION = SparkRows.struct(RestatementRecords.LOG);
  /** A restatement's plan: one row per correction it will make. */
  public static final StructType PLANNED_CORRECTION = SparkRows.struct(RestatementRecords.PLAN);
  /** One micro-batch of a stream's run ({@link io.tidemark.stream.BatchRecord}). */
  public static final StructType STREAM_BATCH = SparkRows.struct(BatchColumns.SCHEMA);
  /** What an audit check says (the audit table adds its time). */
  public static final StructType AUDIT_CHECK = SparkRows.struct(AuditRecords.CHECK);

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
