package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.SqlOrder;
import io.tidemark.lakehouse.spark.SparkRows;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A table's rows, read by Spark, against the rows an oracle computed ({@link PipelineOracle}), as multisets: doubles
 * within a relative 1e-9 (two engines may round a sum apart), decimals exactly (value and scale), the rest equal.
 */
public final class OracleRows {
  private OracleRows() {}

  /** {@code columns} of {@code table} (SQL, e.g. at a ref) where {@code where} holds, against {@code expected}. */
  public static void assertEqual(SparkSession spark, String table, List<Column> columns, List<List<Object>> expected,
                                 String where) {
    List<List<Object>> actual = new ArrayList<>();
    for (Row r : spark.sql("SELECT " + String.join(", ", columns.stream().map(Column::name).toList()) + " FROM "
        + table + " WHERE " + where).collectAsList()) {
      List<Object> row = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        Object v = SparkRows.values(r).get(i);
        row.add(v instanceof Integer n ? Long.valueOf(n) : v);
      }
      actual.add(row);
    }
    // by every value but the doubles, which the two engines may round apart
    Comparator<List<Object>> order = Comparator.comparing(r -> String.valueOf(r.stream()
        .map(v -> v instanceof Double ? "" : v).toList()));
    List<List<Object>> want = expected.stream().sorted(order).toList();
    List<List<Object>> got = actual.stream().sorted(order).toList();
    assertThat(got).as("%s: rows", table).hasSameSizeAs(want);
    for (int i = 0; i < want.size(); i++) {
      assertThat(same(got.get(i), want.get(i))).as("%s: %s, DuckDB %s", table, got.get(i), want.get(i)).isTrue();
    }
  }

  private static boolean same(List<Object> a, List<Object> b) {
    for (int i = 0; i < a.size(); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      boolean eq = x == null || y == null ? x == y
          : x instanceof Double dx && y instanceof Double dy ? SqlOrder.closeDoubles(dx, dy)
          : x instanceof BigDecimal bx && y instanceof BigDecimal by ? bx.compareTo(by) == 0 && bx.scale() == by.scale()
          : x.equals(y);
      if (!eq) {
        return false;
      }
    }
    return true;
  }
}
