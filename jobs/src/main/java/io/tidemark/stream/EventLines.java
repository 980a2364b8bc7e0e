package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.regexp_extract;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * The events as a stream of JSON lines, parsed once the same way for every stream: each line is a valid event
 * or carries the reason it is not. Lines are read as text, not with Spark's JSON source, so that a line that
 * does not parse is kept (for the quarantine) instead of silently becoming a row of nulls.
 */
public final class EventLines {
  /** The event schema of the seeds. */
  public static final StructType SCHEMA =
      StructType.fromDDL("event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP");
  /** The same fields as text, to tell a missing field from one that does not parse. */
  private static final StructType AS_TEXT =
      StructType.fromDDL("event_id STRING, company_id STRING, amount STRING, event_ts STRING");

  private EventLines() {}

  /**
   * The lines under {@code source} (a local directory or an s3a:// prefix, searched recursively) with the
   * file each came from and its arrival number (from an {@code arrival=NNNN} directory, else null).
   */
  public static Dataset<Row> read(SparkSession spark, String source) {
    return spark.readStream()
        // arrival=NNNN directories must not turn into a partition column that appears only once they exist
        .option("recursiveFileLookup", "true")
        .text(source)
        .select(col("value").as("line"), col("_metadata.file_path").as("source_file"))
        .withColumn("arrival", regexp_extract(col("source_file"), "arrival=(\\d+)", 1).cast("int"));
  }

  /**
   * Adds the event columns and {@code reason}: null for a valid event, else why the line is rejected. Valid
   * means a JSON object with an INT event_id and a parseable event_ts, and amount, when present, a number.
   */
  public static Dataset<Row> parse(Dataset<Row> lines) {
    Map<String, String> opts = Map.of("mode", "PERMISSIVE");
    Column typed = from_json(col("line"), SCHEMA, opts);
    Column text = from_json(col("line"), AS_TEXT, opts);
    Column reason =
        when(trim(col("line")).equalTo(""), lit("blank line"))
        .when(org.apache.spark.sql.functions.json_object_keys(col("line")).isNull(),
            lit("not a JSON object"))
        .when(text.getField("event_id").isNull(), lit("missing event_id"))
        .when(typed.getField("event_id").isNull(),
            concat(lit("event_id is not an INT: "), text.getField("event_id")))
        .when(text.getField("event_ts").isNull(), lit("missing event_ts"))
        .when(typed.getField("event_ts").isNull(),
            concat(lit("event_ts is not a timestamp: "), text.getField("event_ts")))
        .when(text.getField("amount").isNotNull().and(typed.getField("amount").isNull()),
            concat(lit("amount is not a number: "), text.getField("amount")));
    return lines.select(col("line"), col("source_file"), col("arrival"),
        typed.getField("event_id").as("event_id"), typed.getField("company_id").as("company_id"),
        typed.getField("amount").as("amount"), typed.getField("event_ts").as("event_ts"), reason.as("reason"));
  }

  /** The valid events only, with the seeds' columns: what the counts and the dedup see. */
  public static Dataset<Row> valid(Dataset<Row> parsed) {
    return parsed.where(col("reason").isNull()).select("event_id", "company_id", "amount", "event_ts");
  }
}
