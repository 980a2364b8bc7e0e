package io.tidemark.stream;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.CompanyChanges;
import io.tidemark.core.Dimension;
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
  private static final String COMPANY = CompanyChanges.COMPANY_ID.name();
  private static final String NAME = CompanyChanges.NAME.name();
  private static final String TIER = CompanyChanges.TIER.name();
  private static final String CHANGE_TS = CompanyChanges.CHANGE_TS.name();
  private static final String DELETED = CompanyChanges.DELETED.name();
  private static final String VALID_TO = Dimension.VALID_TO.name();

  public static Dataset<Row> normalize(Dataset<Row> changes) {
    Column deleted = coalesce(col(DELETED), lit(false));
    return changes.select(col(COMPANY),
        when(deleted, lit(null).cast(NAME_TYPE)).otherwise(col(NAME)).as(NAME),
        when(deleted, lit(null).cast(NAME_TYPE)).otherwise(col(TIER)).as(TIER),
        col(CHANGE_TS), deleted.as(DELETED));
  }

  private static final String NAME_TYPE = CompanyChanges.NAME.type().sql();

  /** Versions ({@link Dimension#VERSION}), from changes of any companies. */
  public static Dataset<Row> rebuild(Dataset<Row> changes) {
    WindowSpec sameInstant = Window.partitionBy(COMPANY, CHANGE_TS)
        .orderBy(col(DELETED).desc(), col(NAME).desc_nulls_last(), col(TIER).desc_nulls_last());
    WindowSpec byTime = Window.partitionBy(COMPANY).orderBy(CHANGE_TS);
    Dataset<Row> settled = normalize(changes)
        .withColumn("rank", row_number().over(sameInstant))
        .where(col("rank").equalTo(1))
        .drop("rank");
    Column sameAsBefore = col(DELETED).eqNullSafe(lag(DELETED, 1).over(byTime))
        .and(col(NAME).eqNullSafe(lag(NAME, 1).over(byTime)))
        .and(col(TIER).eqNullSafe(lag(TIER, 1).over(byTime)));
    return settled
        .withColumn("repeat", sameAsBefore)
        .where(col("repeat").unary_$bang())
        .withColumn(VALID_TO, lead(CHANGE_TS, 1).over(byTime))
        .where(col(DELETED).unary_$bang())
        .select(col(COMPANY).as(Dimension.COMPANY_ID.name()), col(NAME).as(Dimension.NAME.name()),
            col(TIER).as(Dimension.TIER.name()), col(CHANGE_TS).as(Dimension.VALID_FROM.name()), col(VALID_TO),
            col(VALID_TO).isNull().as(Dimension.IS_CURRENT.name()));
  }
}
