package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.json_object_keys;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.regexp_extract;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.CompanyChanges;
import io.tidemark.core.Events;
import io.tidemark.core.Feed;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.land.LandingLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A kind of JSON lines that lands, with one rule of validity for every stream that reads it: a line is valid
 * when it is a JSON object whose fields all convert to the schema and whose required fields are there. The raw
 * archive keeps each invalid line with the reason; the other streams skip it.
 */
public record LineFormat(String dataset, FeedSchema feed, StructType schema, List<String> required) {
  /** Events ({@link Events#FEED}). */
  public static final LineFormat EVENTS = of(Feed.EVENTS);
  /** Company changes ({@link CompanyChanges#FEED}); {@code "deleted": true} marks a delete. */
  public static final LineFormat COMPANY_CHANGES = of(Feed.COMPANIES);

  private static LineFormat of(Feed feed) {
    FeedSchema schema = feed.schema();
    return new LineFormat(feed.dir(), schema, SparkRows.struct(schema.columns()),
        schema.required().stream().map(io.tidemark.core.Column::name).toList());
  }

  private static final String CORRUPT = "_corrupt_record";

  public String[] fields() {
    return schema.fieldNames();
  }

  /** The raw lines under {@code source} (a local directory or an s3a:// prefix, searched recursively). */
  private static Dataset<Row> lines(SparkSession spark, String source) {
    return spark.readStream()
        // the arrival directories (arrival=NNNN) must not turn into a partition column that appears only once
        // they exist
        .option("recursiveFileLookup", "true")
        .text(source)
        .withColumnRenamed("value", Quarantine.LINE.name());
  }

  /**
   * The lines with the file each came from and its arrival number (from its {@link LandingLayout} directory, else
   * null): what the raw archive keeps.
   */
  public static Dataset<Row> read(SparkSession spark, String source) {
    return lines(spark, source)
        .withColumn(Ingest.SOURCE_FILE.name(), col("_metadata.file_path"))
        .withColumn(Ingest.ARRIVAL.name(), regexp_extract(col("_metadata.file_path"), LandingLayout.ARRIVAL_DIR_REGEX,
            1).cast(Ingest.ARRIVAL.type().sql()));
  }

  /** The valid rows, parsed once with Spark's JSON source (twice as fast as from_json over text lines). */
  public Dataset<Row> valid(SparkSession spark, String source) {
    return spark.readStream()
        .schema(schema.add(CORRUPT, "string"))
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", CORRUPT)
        .option("recursiveFileLookup", "true")
        .json(source)
        .where(validity("").and(everyFieldUsed()))
        .select(Arrays.stream(fields()).map(f -> col(f)).toArray(Column[]::new));
  }

  /**
   * True for every row, and it uses every field: Spark's JSON reader converts only the columns a query uses, so a
   * query that leaves one out (the counts use no amount) would keep a line whose left-out field does not convert,
   * which the raw archive rejects. {@code f = f} holds for any value (NaN too), and the optimizer does not drop it
   * for a column that may be null. Parsed from SQL: Column's own equality warns in the log of every run that it
   * compares a column with itself.
   */
  private Column everyFieldUsed() {
    Column all = lit(true);
    for (String f : fields()) {
      if (!required.contains(f)) {
        all = all.and(expr("`" + f + "` IS NULL OR `" + f + "` = `" + f + "`"));
      }
    }
    return all;
  }

  /**
   * Adds the schema's columns and {@code reason}: null for a valid line (the rule of {@link #valid}), else why
   * it is rejected. The reason is worked out only for lines that are not valid.
   */
  public Dataset<Row> parse(Dataset<Row> lines) {
    Map<String, String> opts = Map.of("mode", "PERMISSIVE");
    StructType asText = new StructType();
    for (StructField f : schema.fields()) {
      asText = asText.add(f.name(), DataTypes.StringType);
    }
    Column line = col(Quarantine.LINE.name());
    Column text = from_json(line, asText, opts);
    Column reason = when(validity("e."), lit(null).cast("string"))
        .when(trim(line).equalTo(""), lit("blank line"))
        .when(json_object_keys(line).isNull(), lit("not a JSON object"));
    for (io.tidemark.core.Column f : feed.columns().columns()) {
      Column present = text.getField(f.name()).isNotNull();
      if (feed.isRequired(f)) {
        reason = reason.when(present.unary_$bang(), lit("missing " + f.name()));
      }
      reason = reason.when(present.and(col("e." + f.name()).isNull()),
          concat(lit(f.name() + " is not " + f.type().phrase() + ": "), text.getField(f.name())));
    }
    reason = reason.otherwise(concat(lit("does not convert to the " + dataset + " schema: "), col("e." + CORRUPT)));
    Dataset<Row> typed = lines.withColumn("e", from_json(line, schema.add(CORRUPT, "string"),
        Map.of("mode", "PERMISSIVE", "columnNameOfCorruptRecord", CORRUPT)));
    Column[] out = new Column[fields().length + 4];
    out[0] = line;
    out[1] = col(Ingest.SOURCE_FILE.name());
    out[2] = col(Ingest.ARRIVAL.name());
    for (int i = 0; i < fields().length; i++) {
      out[3 + i] = col("e." + fields()[i]).as(fields()[i]);
    }
    out[out.length - 1] = reason.as(Quarantine.REASON.name());
    return typed.select(out);
  }

  private Column validity(String prefix) {
    Column ok = col(prefix + CORRUPT).isNull();
    for (String f : required) {
      ok = ok.and(col(prefix + f).isNotNull());
    }
    return ok;
  }
}
