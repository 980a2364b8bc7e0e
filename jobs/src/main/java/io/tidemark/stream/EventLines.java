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
 * The events as a stream of JSON lines, with one rule of validity for every stream: each line is a valid event
 * or carries the reason it is not. Lines are read as text, not with Spark's JSON source, so that a line that
 * does not parse is kept (for the quarantine) instead of silently becoming a row of nulls.
 */
public final class EventLines {
  /** The event schema of the seeds. */
  public static final StructType SCHEMA =
      StructType.fromDDL("event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP");
  private static final StructType WITH_CORRUPT = SCHEMA.add("_corrupt_record", "string");
  /** The same fields as text, to tell a missing field from one that does not parse. */
  private static final StructType AS_TEXT =
      StructType.fromDDL("event_id STRING, company_id STRING, amount STRING, event_ts STRING");

  private EventLines() {}

  /** The raw lines under {@code source} (a local directory or an s3a:// prefix, searched recursively). */
  private static Dataset<Row> lines(SparkSession spark, String source) {
    return spark.readStream()
        // arrival=NNNN directories must not turn into a partition column that appears only once they exist
        .option("recursiveFileLookup", "true")
        .text(source)
        .withColumnRenamed("value", "line");
  }

  /**
   * The lines with the file each came from and its arrival number (from an {@code arrival=NNNN} directory,
   * else null): what the raw archive keeps.
   */
  public static Dataset<Row> read(SparkSession spark, String source) {
    return lines(spark, source)
        .withColumn("source_file", col("_metadata.file_path"))
        .withColumn("arrival", regexp_extract(col("_metadata.file_path"), "arrival=(\\d+)", 1).cast("int"));
  }

  /**
   * The valid events, parsed once: what the counts and the dedup see. A line is valid when it is a JSON
   * object whose fields all convert (an INT event_id, a timestamp event_ts, a number amount) and event_id and
   * event_ts are there. Spark puts the line into the corrupt-record column when a field does not convert. The
   * same rule as {@link #parse}, which the raw archive uses, with the same parser underneath.
   */
  public static Dataset<Row> events(SparkSession spark, String source) {
    // Spark's JSON source parses straight from the bytes: twice as fast as from_json over text lines
    return spark.readStream()
        .schema(WITH_CORRUPT)
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", "_corrupt_record")
        .option("recursiveFileLookup", "true")
        .json(source)
        .where(col("_corrupt_record").isNull().and(col("event_id").isNotNull()).and(col("event_ts").isNotNull()))
        .select("event_id", "company_id", "amount", "event_ts");
  }

  /**
   * Adds the event columns and {@code reason}: null for a valid event (see {@link #events}), else why the line
   * is rejected. The reason is worked out only for lines that are not valid.
   */
  public static Dataset<Row> parse(Dataset<Row> lines) {
    Map<String, String> opts = Map.of("mode", "PERMISSIVE");
    Column text = from_json(col("line"), AS_TEXT, opts);
    Column reason =
        when(VALID, lit(null).cast("string"))
        .when(trim(col("line")).equalTo(""), lit("blank line"))
        .when(org.apache.spark.sql.functions.json_object_keys(col("line")).isNull(),
            lit("not a JSON object"))
        .when(text.getField("event_id").isNull(), lit("missing event_id"))
        .when(col("e.event_id").isNull(), concat(lit("event_id is not an INT: "), text.getField("event_id")))
        .when(text.getField("event_ts").isNull(), lit("missing event_ts"))
        .when(col("e.event_ts").isNull(), concat(lit("event_ts is not a timestamp: "), text.getField("event_ts")))
        .when(text.getField("amount").isNotNull().and(col("e.amount").isNull()),
            concat(lit("amount is not a number: "), text.getField("amount")))
        .otherwise(concat(lit("does not convert to the event schema: "), col("e._corrupt_record")));
    return withTyped(lines).select(col("line"), col("source_file"), col("arrival"),
        col("e.event_id").as("event_id"), col("e.company_id").as("company_id"), col("e.amount").as("amount"),
        col("e.event_ts").as("event_ts"), reason.as("reason"));
  }

  private static final Column VALID = col("e._corrupt_record").isNull()
      .and(col("e.event_id").isNotNull()).and(col("e.event_ts").isNotNull());

  private static Dataset<Row> withTyped(Dataset<Row> lines) {
    return lines.withColumn("e", from_json(col("line"), WITH_CORRUPT,
        Map.of("mode", "PERMISSIVE", "columnNameOfCorruptRecord", "_corrupt_record")));
  }
}
