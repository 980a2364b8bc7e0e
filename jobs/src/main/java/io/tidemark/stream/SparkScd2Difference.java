package io.tidemark.stream;

import static org.apache.spark.sql.functions.lit;

import io.tidemark.core.DimensionSchema;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What an SCD2 dimension must change for some keys to equal their history rebuilt from the change log:
 * versions to insert or correct ({@code op = 'upsert'}) and versions to remove ({@code op = 'delete'}), keyed on
 * (key, valid_from), computed in Spark for a large batch: the rules of {@link io.tidemark.core.Scd2Difference}
 * as a plan (tested equal to them), and the MERGE that writes it.
 */
public final class SparkScd2Difference {
  static final String UPSERT = "upsert";
  static final String DELETE = "delete";

  private SparkScd2Difference() {}

  /** A version's identity: the dimension's key and valid from. */
  private static String[] id(DimensionSchema d) {
    List<String> out = new java.util.ArrayList<>(d.key().stream().map(io.tidemark.core.Column::name).toList());
    out.add(DimensionSchema.VALID_FROM.name());
    return out.toArray(new String[0]);
  }

  /** From the rebuilt history and the dimension's versions of the same keys. */
  public static Dataset<Row> of(Dataset<Row> history, Dataset<Row> current, DimensionSchema d) {
    String[] key = id(d);
    Dataset<Row> upserts = history.except(current).withColumn(OP, lit(UPSERT));
    Dataset<Row> gone = current.select(key[0], java.util.Arrays.copyOfRange(key, 1, key.length))
        .except(history.select(key[0], java.util.Arrays.copyOfRange(key, 1, key.length)))
        .join(current, key)
        .select(current.columns()[0], java.util.Arrays.copyOfRange(current.columns(), 1, current.columns().length))
        .withColumn(OP, lit(DELETE));
    return upserts.unionByName(gone);
  }

  /**
   * What to do with a version of the difference: {@link #UPSERT} or {@link #DELETE}; named apart from the
   * dimension's columns (an attribute may be called op).
   */
  private static final String OP = "__op";

  /**
   * One MERGE: versions to insert or correct, keyed on (key, valid from), and versions to remove; every other
   * column of a version set from the difference.
   */
  public static void merge(Dataset<Row> diff, String dimensionSql, DimensionSchema d) {
    String view = "tidemark_scd2_diff";
    diff.createOrReplaceTempView(view);
    List<String> key = List.of(id(d));
    // the difference's own columns: the dimension's as declared when the job runs, promoted attributes too
    List<String> columns = java.util.Arrays.stream(diff.columns()).filter(c -> !c.equals(OP)).toList();
    String on = key.stream().map(c -> "t." + c + " = s." + c).collect(Collectors.joining(" AND "));
    String set = columns.stream().filter(c -> !key.contains(c)).map(c -> "t." + c + " = s." + c)
        .collect(Collectors.joining(", "));
    diff.sparkSession().sql("MERGE INTO " + dimensionSql + " t USING " + view + " s ON " + on + " "
        + "WHEN MATCHED AND s." + OP + " = '" + DELETE + "' THEN DELETE "
        + "WHEN MATCHED THEN UPDATE SET " + set + " "
        + "WHEN NOT MATCHED AND s." + OP + " = '" + UPSERT + "' THEN INSERT (" + String.join(", ", columns)
        + ") VALUES (" + columns.stream().map(c -> "s." + c).collect(Collectors.joining(", ")) + ")");
  }
}
