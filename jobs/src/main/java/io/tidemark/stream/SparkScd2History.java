package io.tidemark.stream;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The SCD2 history of companies rebuilt from their changes in Spark, for batches too large for the driver: the rules
 * of {@link io.tidemark.core.Scd2History}, as a plan (tested equal to them over generated changes).
 */
public final class SparkScd2History {
  private SparkScd2History() {}

  /**
   * Changes as the history reads them: {@code deleted} never null, a delete carries no attributes. Two different
   * changes of one company at the same instant are settled the same way everywhere: a delete wins, else the
   * greater (name, tier).
   */
  public static Dataset<Row> normalize(Dataset<Row> changes) {
    Column deleted = coalesce(col("deleted"), lit(false));
    return changes.select(col("company_id"),
        when(deleted, lit(null).cast("string")).otherwise(col("name")).as("name"),
        when(deleted, lit(null).cast("string")).otherwise(col("tier")).as("tier"),
        col("change_ts"), deleted.as("deleted"));
  }

  /** Versions ({@link io.tidemark.lakehouse.Schemas#COMPANY_VERSION}), from changes of any companies. */
  public static Dataset<Row> rebuild(Dataset<Row> changes) {
    WindowSpec sameInstant = Window.partitionBy("company_id", "change_ts")
        .orderBy(col("deleted").desc(), col("name").desc_nulls_last(), col("tier").desc_nulls_last());
    WindowSpec byTime = Window.partitionBy("company_id").orderBy("change_ts");
    Dataset<Row> settled = normalize(changes)
        .withColumn("rank", row_number().over(sameInstant))
        .where(col("rank").equalTo(1))
        .drop("rank");
    Column sameAsBefore = col("deleted").eqNullSafe(lag("deleted", 1).over(byTime))
        .and(col("name").eqNullSafe(lag("name", 1).over(byTime)))
        .and(col("tier").eqNullSafe(lag("tier", 1).over(byTime)));
    return settled
        .withColumn("repeat", sameAsBefore)
        .where(col("repeat").unary_$bang())
        .withColumn("valid_to", lead("change_ts", 1).over(byTime))
        .where(col("deleted").unary_$bang())
        .select(col("company_id"), col("name"), col("tier"), col("change_ts").as("valid_from"), col("valid_to"),
            col("valid_to").isNull().as("is_current"));
  }
}
