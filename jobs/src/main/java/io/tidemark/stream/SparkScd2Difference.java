package io.tidemark.stream;

import static org.apache.spark.sql.functions.lit;

import io.tidemark.lakehouse.Schemas;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What the SCD2 dimension must change for some companies to equal their history rebuilt from the change log:
 * versions to insert or correct ({@code op = 'upsert'}) and versions to remove ({@code op = 'delete'}), keyed on
 * (company_id, valid_from), computed in Spark for a large batch: the rules of {@link io.tidemark.core.Scd2Difference}
 * as a plan (tested equal to them), and the MERGE that writes it.
 */
public final class SparkScd2Difference {
  static final String UPSERT = "upsert";
  static final String DELETE = "delete";

  private SparkScd2Difference() {}

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
