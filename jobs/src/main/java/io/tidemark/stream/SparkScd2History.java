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
import io.tidemark.core.FeedSchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The SCD2 history of companies rebuilt from their changes in Spark, for batches too large for the driver: the rules
 * of {@link io.tidemark.core.Scd2History}, as a plan (tested equal to them over generated changes). The attributes are
 * the feed's as declared when the job runs ({@link CompanyChanges#attributes}): a promoted one is tracked as the name
 * is.
 */
public final class SparkScd2History {
  private SparkScd2History() {}

  private static final String COMPANY = CompanyChanges.COMPANY_ID.name();
  private static final String CHANGE_TS = CompanyChanges.CHANGE_TS.name();
  private static final String DELETED = CompanyChanges.DELETED.name();
  private static final String VALID_TO = Dimension.VALID_TO.name();

  /**
   * Changes as the history reads them: {@code deleted} never null, a delete carries no attributes. Two different
   * changes of one company at the same instant are settled the same way everywhere: a delete wins, else the
   * greater attributes, in order.
   */
  public static Dataset<Row> normalize(Dataset<Row> changes) {
    return normalize(changes, CompanyChanges.FEED);
  }

  /** The same for the companies as declared when the job runs; the feed's columns in its order. */
  public static Dataset<Row> normalize(Dataset<Row> changes, FeedSchema companies) {
    Column deleted = coalesce(col(DELETED), lit(false));
    List<Column> out = new ArrayList<>();
    for (io.tidemark.core.Column c : companies.columns().columns()) {
      if (c.name().equals(DELETED)) {
        out.add(deleted.as(DELETED));
      } else if (CompanyChanges.attributes(companies).contains(c)) {
        out.add(when(deleted, lit(null).cast(c.type().sql())).otherwise(col(c.name())).as(c.name()));
      } else {
        out.add(col(c.name()));
      }
    }
    return changes.select(out.toArray(new Column[0]));
  }

  /** Versions ({@link Dimension#VERSION}), from changes of any companies. */
  public static Dataset<Row> rebuild(Dataset<Row> changes) {
    return rebuild(changes, CompanyChanges.FEED);
  }

  /** Versions ({@link Dimension#version}) of the companies as declared when the job runs. */
  public static Dataset<Row> rebuild(Dataset<Row> changes, FeedSchema companies) {
    List<io.tidemark.core.Column> attributes = CompanyChanges.attributes(companies);
    List<Column> winnerFirst = new ArrayList<>(List.of(col(DELETED).desc()));
    attributes.forEach(a -> winnerFirst.add(col(a.name()).desc_nulls_last()));
    WindowSpec sameInstant = Window.partitionBy(COMPANY, CHANGE_TS).orderBy(winnerFirst.toArray(new Column[0]));
    WindowSpec byTime = Window.partitionBy(COMPANY).orderBy(CHANGE_TS);
    Dataset<Row> settled = normalize(changes, companies)
        .withColumn("rank", row_number().over(sameInstant))
        .where(col("rank").equalTo(1))
        .drop("rank");
    Column sameAsBefore = col(DELETED).eqNullSafe(lag(DELETED, 1).over(byTime));
    for (io.tidemark.core.Column a : attributes) {
      sameAsBefore = sameAsBefore.and(col(a.name()).eqNullSafe(lag(a.name(), 1).over(byTime)));
    }
    List<Column> version = new ArrayList<>(List.of(col(COMPANY).as(Dimension.COMPANY_ID.name())));
    attributes.forEach(a -> version.add(col(a.name())));
    version.add(col(CHANGE_TS).as(Dimension.VALID_FROM.name()));
    version.add(col(VALID_TO));
    version.add(col(VALID_TO).isNull().as(Dimension.IS_CURRENT.name()));
    return settled
        .withColumn("repeat", sameAsBefore)
        .where(col("repeat").unary_$bang())
        .withColumn(VALID_TO, lead(CHANGE_TS, 1).over(byTime))
        .where(col(DELETED).unary_$bang())
        .select(version.toArray(new Column[0]));
  }
}
