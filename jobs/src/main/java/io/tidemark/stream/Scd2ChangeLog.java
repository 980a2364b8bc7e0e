package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;

import io.tidemark.core.DimensionSchema;
import io.tidemark.lakehouse.spark.SparkRows;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;

/**
 * An SCD2 dimension's change log: every change applied to the dimension, once. The dimension's history is
 * rebuilt from it, so a change applied once is never applied again, whoever brings it (a replayed batch, the
 * restatement).
 */
public final class Scd2ChangeLog {
  private Scd2ChangeLog() {}

  /** The changes (normalized) that the log, given as a Spark SQL name, does not hold yet. */
  public static Dataset<Row> unlogged(Dataset<Row> changes, String logSql, DimensionSchema d) {
    String[] key = d.key().stream().map(io.tidemark.core.Column::name).toArray(String[]::new);
    Dataset<Row> keys = changes.select(key[0], java.util.Arrays.copyOfRange(key, 1, key.length)).distinct();
    Dataset<Row> logged = changes.sparkSession().table(logSql).join(broadcast(keys), key);
    return unlogged(changes, logged);
  }

  /** The changes that are not among {@code logged}, as SQL's null-safe equality tells changes apart. */
  public static Dataset<Row> unlogged(Dataset<Row> changes, Dataset<Row> logged) {
    return changes.join(logged, sameChange(changes, logged), "left_anti");
  }

  /**
   * Equal in every column the changes have: the log's as declared when the job runs, so a promoted attribute tells
   * two changes apart as any other (the log has the column from the promotion on).
   */
  private static Column sameChange(Dataset<Row> a, Dataset<Row> b) {
    Column same = null;
    for (String c : a.columns()) {
      Column eq = a.col(c).eqNullSafe(b.col(c));
      same = same == null ? eq : same.and(eq);
    }
    return same;
  }

  /** Appends changes to the log, given as a Spark SQL name (a table, or a table on a branch). */
  public static void append(Dataset<Row> rows, String logSql, DimensionSchema d) {
    try {
      rows.select(SparkRows.columns(d.logged())).writeTo(logSql).append();
    } catch (NoSuchTableException e) {
      throw new StreamException("table " + logSql + " disappeared while the stream ran");
    }
  }
}
