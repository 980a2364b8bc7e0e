package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lag;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.when;

import io.tidemark.core.DeleteMarker;
import io.tidemark.core.DimensionSchema;
import io.tidemark.lakehouse.spark.SparkRows;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * The SCD2 history of a dimension's keys rebuilt from their changes in Spark, for batches too large for the driver:
 * the rules of {@link io.tidemark.core.Scd2History}, as a plan (tested equal to them over generated changes). The
 * attributes are the dimension's as declared when the job runs: a promoted one is tracked as any other.
 */
public final class SparkScd2History {
  private SparkScd2History() {}

  /** The columns a plan adds (named apart from a feed's, which may be called rank or repeat). */
  private static final String DELETED = "__deleted";
  private static final String RANK = "__rank";
  private static final String REPEAT = "__repeat";

  /** Whether a row of the feed's (or the log's) columns is a delete: its marker holds the marker's value. */
  public static Column isDelete(DimensionSchema d) {
    DeleteMarker m = d.delete();
    return m == null ? lit(false) : col(m.column().name()).eqNullSafe(lit(SparkRows.literal(m.value())));
  }

  /**
   * Changes as the change log keeps them ({@link DimensionSchema#logged}, in its order): the marker normalized
   * ({@link DeleteMarker#logged}), a delete carrying no attributes.
   */
  public static Dataset<Row> normalize(Dataset<Row> changes, DimensionSchema d) {
    Column deleted = isDelete(d);
    List<Column> out = new ArrayList<>();
    for (io.tidemark.core.Column c : d.logged().columns()) {
      DeleteMarker m = d.delete();
      if (m != null && c.equals(m.column())) {
        Object other = m.logged(false);
        out.add(when(deleted, lit(SparkRows.literal(m.value())))
            .otherwise(other == null ? lit(null) : lit(SparkRows.literal(other))).cast(c.type().sql()).as(c.name()));
      } else if (d.attributes().contains(c)) {
        out.add(when(deleted, lit(null).cast(c.type().sql())).otherwise(col(c.name())).as(c.name()));
      } else {
        out.add(col(c.name()));
      }
    }
    return changes.select(out.toArray(new Column[0]));
  }

  /**
   * Versions ({@link DimensionSchema#version}) from changes of any keys (rows of the log's columns). Two different
   * changes of one key at the same instant are settled the same way everywhere: a delete wins, else the greater
   * attributes, in order.
   */
  public static Dataset<Row> rebuild(Dataset<Row> changes, DimensionSchema d) {
    Column[] key = d.key().stream().map(c -> col(c.name())).toArray(Column[]::new);
    String time = d.changeTime().name();
    List<Column> winnerFirst = new ArrayList<>(List.of(col(DELETED).desc()));
    d.attributes().forEach(a -> winnerFirst.add(col(a.name()).desc_nulls_last()));
    List<Column> keyAndTime = new ArrayList<>(List.of(key));
    keyAndTime.add(col(time));
    WindowSpec sameInstant = Window.partitionBy(keyAndTime.toArray(new Column[0]))
        .orderBy(winnerFirst.toArray(new Column[0]));
    WindowSpec byTime = Window.partitionBy(key).orderBy(time);
    Dataset<Row> settled = normalize(changes, d)
        .withColumn(DELETED, isDelete(d))
        .withColumn(RANK, row_number().over(sameInstant))
        .where(col(RANK).equalTo(1))
        .drop(RANK);
    Column sameAsBefore = col(DELETED).eqNullSafe(lag(DELETED, 1).over(byTime));
    for (io.tidemark.core.Column a : d.attributes()) {
      sameAsBefore = sameAsBefore.and(col(a.name()).eqNullSafe(lag(a.name(), 1).over(byTime)));
    }
    String validTo = DimensionSchema.VALID_TO.name();
    List<Column> version = new ArrayList<>(List.of(key));
    d.attributes().forEach(a -> version.add(col(a.name())));
    version.add(col(time).as(DimensionSchema.VALID_FROM.name()));
    version.add(col(validTo));
    version.add(col(validTo).isNull().as(DimensionSchema.IS_CURRENT.name()));
    return settled
        .withColumn(REPEAT, sameAsBefore)
        .where(col(REPEAT).unary_$bang())
        .withColumn(validTo, lead(time, 1).over(byTime))
        .where(col(DELETED).unary_$bang())
        .select(version.toArray(new Column[0]));
  }
}
