package io.tidemark.lakehouse.tables;

import io.tidemark.core.Column;
import io.tidemark.core.Times;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Iceberg filters that pick the rows of some keys (one column or more), for the driver's reads: each column's values
 * in an IN list, which Iceberg prunes files and buckets with. For a composite key that picks every combination of the
 * values, a superset: the reader keeps the rows whose whole key is one of the keys.
 */
public final class KeyFilters {
  private KeyFilters() {}

  /** The rows whose key may be one of {@code keys} (values in the key's order). */
  public static Expression of(List<Column> key, Collection<List<Object>> keys) {
    Expression out = Expressions.alwaysTrue();
    for (int i = 0; i < key.size(); i++) {
      Set<Object> values = new LinkedHashSet<>();
      for (List<Object> k : keys) {
        if (k.get(i) != null) {
          values.add(literal(k.get(i)));
        }
      }
      Expression in = values.isEmpty() ? Expressions.alwaysFalse()
          : Expressions.in(key.get(i).name(), values.toArray());
      out = i == 0 ? in : Expressions.and(out, in);
    }
    return out;
  }

  /** A value as Iceberg's expressions take it: a timestamp in microseconds, a date in days. */
  public static Object literal(Object v) {
    if (v instanceof Instant t) {
      return Times.micros(t);
    }
    if (v instanceof LocalDate d) {
      return (int) d.toEpochDay();
    }
    return v;
  }

  /** The literals of several values. */
  public static List<Object> literals(Collection<?> values) {
    List<Object> out = new ArrayList<>();
    values.forEach(v -> out.add(literal(v)));
    return out;
  }
}
