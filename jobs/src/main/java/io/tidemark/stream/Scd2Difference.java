package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.lakehouse.Schemas;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.StructType;

/**
 * What the SCD2 dimension must change for some companies to equal their history rebuilt from the change log:
 * versions to insert or correct ({@code op = 'upsert'}) and versions to remove ({@code op = 'delete'}), keyed on
 * (company_id, valid_from). The stream writes it per batch, the restatement for the companies of late changes;
 * computed in Spark or, for a small batch, on the driver, by the same rules.
 */
public final class Scd2Difference {
  /** A version of {@link Schemas#COMPANY_VERSION} and what to do with it. */
  static final StructType VERSION_CHANGE = Schemas.COMPANY_VERSION.add("op", "STRING");
  static final String UPSERT = "upsert";
  static final String DELETE = "delete";

  private Scd2Difference() {}

  /** The difference for the companies in {@code keys} (a column company_id), from the log and the dimension. */
  public static Dataset<Row> forCompanies(Dataset<Row> keys, String logSql, String dimensionSql) {
    SparkSession spark = keys.sparkSession();
    Dataset<Row> history = Scd2History.rebuild(spark.table(logSql).join(broadcast(keys), "company_id"));
    Dataset<Row> current = spark.table(dimensionSql).join(broadcast(keys), "company_id")
        .select(Schemas.columns(Schemas.COMPANY_VERSION));
    return of(history, current);
  }

  /** From the rebuilt history and the dimension's versions of the same companies. */
  static Dataset<Row> of(Dataset<Row> history, Dataset<Row> current) {
    Dataset<Row> upserts = history.except(current).withColumn("op", lit(UPSERT));
    Dataset<Row> gone = current.select("company_id", "valid_from")
        .except(history.select("company_id", "valid_from"))
        .join(current, new String[] {"company_id", "valid_from"})
        .select(Schemas.columns(Schemas.COMPANY_VERSION))
        .withColumn("op", lit(DELETE));
    return upserts.unionByName(gone);
  }

  /** {@link #of(Dataset, Dataset)} on the driver: rows of {@link #VERSION_CHANGE}. */
  static List<Row> of(List<Row> history, List<Row> current) {
    Set<List<Object>> now = current.stream().map(Scd2Difference::values).collect(Collectors.toSet());
    Set<List<Object>> kept = history.stream().map(Scd2Difference::versionKey).collect(Collectors.toSet());
    List<Row> diff = new ArrayList<>();
    history.stream().map(Scd2Difference::values).filter(v -> !now.contains(v)).distinct()
        .forEach(v -> diff.add(withOp(v, UPSERT)));
    current.stream().filter(r -> !kept.contains(versionKey(r))).forEach(r -> diff.add(withOp(values(r), DELETE)));
    return diff;
  }

  /** A version's identity in the dimension: its company and when it starts (what the MERGE matches on). */
  static List<Object> versionKey(Row version) {
    return Arrays.asList(version.getAs("company_id"), version.getAs("valid_from"));
  }

  static boolean isUpsert(Row change) {
    return UPSERT.equals(change.getAs("op"));
  }

  static List<Object> values(Row r) {
    return IntStream.range(0, r.size()).mapToObj(r::get).toList();
  }

  private static Row withOp(List<Object> version, String op) {
    Object[] v = version.toArray(new Object[version.size() + 1]);
    v[version.size()] = op;
    return new GenericRowWithSchema(v, VERSION_CHANGE);
  }

  /** One MERGE: versions to insert or correct, keyed on (company_id, valid_from), and versions to remove. */
  public static void merge(Dataset<Row> diff, String dimensionSql) {
    String view = "tidemark_scd2_diff";
    diff.createOrReplaceTempView(view);
    diff.sparkSession().sql("MERGE INTO " + dimensionSql + " t USING " + view + " s "
        + "ON t.company_id = s.company_id AND t.valid_from = s.valid_from "
        + "WHEN MATCHED AND s.op = '" + DELETE + "' THEN DELETE "
        + "WHEN MATCHED THEN UPDATE SET t.name = s.name, t.tier = s.tier, t.valid_to = s.valid_to, "
        + "t.is_current = s.is_current "
        + "WHEN NOT MATCHED AND s.op = '" + UPSERT + "' THEN INSERT (company_id, name, tier, valid_from, valid_to, "
        + "is_current) VALUES (s.company_id, s.name, s.tier, s.valid_from, s.valid_to, s.is_current)");
  }
}
