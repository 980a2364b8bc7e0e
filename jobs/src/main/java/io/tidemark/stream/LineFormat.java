package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.regexp_extract;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.JsonMembers;
import io.tidemark.core.LineReader;
import io.tidemark.core.Quarantine;
import io.tidemark.core.Rescued;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.pipeline.Conditions;
import io.tidemark.land.LandingLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A kind of JSON lines that lands, as its feed is declared when a stream runs, with one rule of validity for every
 * stream that reads it: a line is valid when it is a JSON object whose required fields are there and convert to
 * their types. An optional field whose value does not convert is null in its column, and its value is kept in the
 * raw archive's rescued data with every key the feed does not declare ({@link Rescued}); the line still flows on to
 * the other streams. The raw archive keeps each invalid line with the reason; the other streams skip it. A valid line
 * is then judged by the feed's row expectations ({@link Judgement}), by the same rule in every stream: one that a
 * drop or fail expectation quarantines is kept by the raw archive's quarantine with the expectation as its reason and
 * skipped by the other streams, as an invalid line is.
 */
public record LineFormat(String dataset, FeedSchema feed, StructType schema, List<String> required,
                         Judgement judgement) {
  /** The lines of a feed as declared (by the pipeline file, or by its raw archive: {@link FeedSchema#declaredBy}). */
  public static LineFormat of(FeedSchema schema) {
    return of(schema, Judgement.none());
  }

  /**
   * The same, each valid line then judged by the feed's row expectations ({@link Judgement}): one that fails a drop
   * or fail expectation is quarantined by the raw archive and skipped by every other stream.
   */
  public static LineFormat of(FeedSchema schema, Judgement judgement) {
    return new LineFormat(schema.name(), schema, SparkRows.struct(schema.columns()),
        schema.required().stream().map(io.tidemark.core.Column::name).toList(), judgement);
  }

  /** In {@link #parse}'s rows: whether the line is valid (before the expectations judge it). */
  public static final String VALID = "__valid";

  private static final String CORRUPT = "_corrupt_record";

  /** Whether a line is a JSON object as Spark's JSON reader reads one: the core's rule ({@link JsonMembers}). */
  private static final UserDefinedFunction IS_OBJECT = udf(
      (UDF1<String, Boolean>) line -> JsonMembers.scan(line, k -> false, new HashMap<>()), DataTypes.BooleanType)
      .withName("tidemark_is_json_object");

  public String[] fields() {
    return schema.fieldNames();
  }

  /**
   * How both of Spark's sources read lines here: a line ends at a line feed ({@link LineReader}; by default Hadoop's
   * reader also ends one at a lone carriage return, which the publish gate would count otherwise), and the arrival
   * directories (arrival=NNNN) are searched, not turned into a partition column that appears only once they exist.
   */
  private static final Map<String, String> LINES = Map.of("lineSep", "\n", "recursiveFileLookup", "true");

  /** Why a line is quarantined whatever it holds ({@link LineReader.Line#defect}), next to its text while parsed. */
  static final String DEFECT = "_line_defect";

  /** A line's bytes, as the text source split them, read by the core's rule: its text and its defect. */
  private static final UserDefinedFunction READ_LINE = udf((UDF1<byte[], Row>) bytes -> {
    LineReader.Line l = LineReader.line(bytes);
    return RowFactory.create(l.text(), l.defect());
  }, new StructType().add("text", DataTypes.StringType).add("defect", DataTypes.StringType))
      .withName("tidemark_read_line");

  /** The text source's lines ({@code value}) read by {@link LineReader}: the line and its defect. */
  private static Dataset<Row> lines(Dataset<Row> text) {
    return text.withColumn("l", READ_LINE.apply(col("value").cast(DataTypes.BinaryType)))
        .select(col("l.text").as(Quarantine.LINE.name()), col("l.defect").as(DEFECT), col("_metadata"));
  }

  /**
   * The lines with the file each came from and its arrival number (from its {@link LandingLayout} directory, else
   * null): what the raw archive keeps. {@code source}: a local directory or an s3a:// prefix, searched recursively.
   */
  public static Dataset<Row> read(SparkSession spark, String source) {
    return withSource(lines(spark.readStream().options(LINES).text(source)));
  }

  /** The same, read once (not as a stream): for the benchmarks and the tests that hold the readers to one another. */
  public static Dataset<Row> readBatch(SparkSession spark, String source) {
    return withSource(lines(spark.read().options(LINES).text(source)));
  }

  private static Dataset<Row> withSource(Dataset<Row> lines) {
    return lines
        .withColumn(Ingest.SOURCE_FILE.name(), col("_metadata.file_path"))
        .withColumn(Ingest.ARRIVAL.name(), arrival())
        // when the line's file landed: what current_timestamp() is in an expectation's condition
        .withColumn(Conditions.LANDED_AT, col("_metadata.file_modification_time"))
        .drop("_metadata");
  }

  /** A line's arrival number, from its file's {@link LandingLayout} directory (null outside it). */
  private static Column arrival() {
    return regexp_extract(col("_metadata.file_path"), LandingLayout.ARRIVAL_DIR_REGEX, 1)
        .cast(Ingest.ARRIVAL.type().sql());
  }

  /**
   * The valid rows, parsed once with Spark's JSON source (twice as fast as from_json over text lines). A line whose
   * optional field did not convert is valid, with that field null: Spark's reader keeps the fields that converted and
   * names the line its corrupt record, which is then only checked to be a JSON object. A column a query leaves out is
   * not converted at all, which changes nothing now that no optional field decides whether a line is valid. A line
   * that is not UTF-8 does not parse here (Jackson's byte parser refuses it), as the raw stream quarantines it.
   */
  public Dataset<Row> valid(SparkSession spark, String source) {
    return valid(spark.readStream().schema(schema.add(CORRUPT, "string")).options(LINES)
        .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT).json(source));
  }

  /** The same, read once (not as a stream). */
  public Dataset<Row> validBatch(SparkSession spark, String source) {
    return valid(spark.read().schema(schema.add(CORRUPT, "string")).options(LINES)
        .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT).json(source));
  }

  private Dataset<Row> valid(Dataset<Row> json) {
    Dataset<Row> valid = json.where(validity("", col(CORRUPT)));
    if (judgement.readsArrival()) {
      valid = valid.withColumn(Ingest.ARRIVAL.name(), arrival());
    }
    if (judgement.readsLandingTime()) {
      valid = valid.withColumn(Conditions.LANDED_AT, col("_metadata.file_modification_time"));
    }
    return judgement.kept(valid).select(Arrays.stream(fields()).map(f -> col(f)).toArray(Column[]::new));
  }

  /**
   * Adds the schema's columns, the rescued data ({@link Rescued#DATA}, for a valid line) and {@code reason}: null for
   * a valid line (the rule of {@link #valid}), else why it is rejected. The reason is worked out only for lines that
   * are not valid, the rescued data only for those that are.
   */
  public Dataset<Row> parse(Dataset<Row> lines) {
    Map<String, String> opts = Map.of("mode", "PERMISSIVE");
    StructType asText = new StructType();
    for (StructField f : schema.fields()) {
      asText = asText.add(f.name(), DataTypes.StringType);
    }
    Column line = col(Quarantine.LINE.name());
    Column text = from_json(line, asText, opts);
    // lines read without the core's reader (a benchmark's) have no defect
    Column defect = Arrays.asList(lines.columns()).contains(DEFECT) ? col(DEFECT) : lit(null).cast("string");
    Column valid = defect.isNull().and(validity("e.", line));
    Column reason = when(valid, lit(null).cast("string"))
        .when(defect.isNotNull(), defect)
        .when(trim(line).equalTo(""), lit("blank line"))
        .when(IS_OBJECT.apply(line).unary_$bang(), lit("not a JSON object"));
    for (io.tidemark.core.Column f : feed.required()) {
      Column present = text.getField(f.name()).isNotNull();
      reason = reason.when(present.unary_$bang(), lit("missing " + f.name()))
          .when(col("e." + f.name()).isNull(), concat(lit(f.name() + " is not " + f.type().phrase() + ": "),
              text.getField(f.name())));
    }
    reason = reason.otherwise(concat(lit("does not convert to the " + dataset + " schema: "), col("e." + CORRUPT)));
    Dataset<Row> typed = lines.withColumn("e", from_json(line, schema.add(CORRUPT, "string"),
        Map.of("mode", "PERMISSIVE", "columnNameOfCorruptRecord", CORRUPT)));
    List<Column> out = new java.util.ArrayList<>();
    out.add(line);
    out.add(col(Ingest.SOURCE_FILE.name()));
    out.add(col(Ingest.ARRIVAL.name()));
    for (String f : fields()) {
      out.add(col("e." + f).as(f));
    }
    out.add(when(valid, rescue().apply(line, typedNull())).as(Rescued.DATA.name()));
    out.add(reason.as(Quarantine.REASON.name()));
    out.add(valid.as(VALID));
    if (judgement.readsLandingTime()) {
      out.add(col(Conditions.LANDED_AT));
    }
    Dataset<Row> parsed = typed.select(out.toArray(Column[]::new));
    if (!judgement.judges()) {
      return parsed;
    }
    // a valid line that fails a drop or fail expectation is quarantined with the expectation as its reason
    Column formatReason = col(Quarantine.REASON.name());
    return parsed.withColumn(Quarantine.REASON.name(), when(col(VALID), judgement.reason()).otherwise(formatReason));
  }

  /** The rescued data of a valid line: the core's rule, given which optional fields' typed values are null. */
  private UserDefinedFunction rescue() {
    Rescued.Rule rule = new Rescued.Rule(feed);
    return udf((UDF2<String, Long, String>) rule::of, DataTypes.StringType).withName("tidemark_rescued_data");
  }

  /** Bit i set when the i-th optional field's typed value is null ({@link Rescued.Rule}). */
  private Column typedNull() {
    Column mask = lit(0L);
    List<io.tidemark.core.Column> optional = feed.optional();
    for (int i = 0; i < optional.size(); i++) {
      mask = mask.plus(when(col("e." + optional.get(i).name()).isNull(), lit(1L << i)).otherwise(lit(0L)));
    }
    return mask;
  }

  /**
   * Valid: every required field holds a value (it was there and converted), and the line is a JSON object: Spark's
   * reader named no corrupt record, or the one it named (an optional field that did not convert) is an object.
   */
  private Column validity(String prefix, Column lineText) {
    Column ok = lit(true);
    for (String f : required) {
      ok = ok.and(col(prefix + f).isNotNull());
    }
    return ok.and(when(col(prefix + CORRUPT).isNull(), lit(true)).otherwise(IS_OBJECT.apply(lineText)));
  }
}
