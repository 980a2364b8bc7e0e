package io.tidemark.core;

import java.util.Objects;

/**
 * What marks a dimension change as a delete: a column of the feed holding a value ({@code "deleted": true},
 * {@code "op": "D"}). The change log keeps the column as the marker of the change, normalized so that two changes that
 * say the same compare equal: the marker's value on a delete; on any other change the opposite for a boolean marker,
 * else null.
 */
public record DeleteMarker(Column column, Object value) {
  public DeleteMarker {
    Objects.requireNonNull(column);
    Objects.requireNonNull(value);
    if (!column.type().javaClass().isInstance(value)) {
      throw new IllegalArgumentException("the delete marker's value " + value + " is not " + column.type().phrase()
          + " as " + column + " is");
    }
  }

  /** Whether a change whose marker column holds {@code v} is a delete. */
  public boolean isDelete(Object v) {
    return value.equals(v);
  }

  /** The marker's value as a SQL literal that Spark and DuckDB read alike. */
  public String sql() {
    if (value instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    }
    if (value instanceof java.time.LocalDate d) {
      return "DATE '" + d + "'";
    }
    if (value instanceof java.time.Instant t) {
      return "TIMESTAMP '" + t.toString().replace('T', ' ').replace("Z", "") + "'";
    }
    return String.valueOf(value).toUpperCase(java.util.Locale.ROOT);
  }

  /** A SQL condition on a row (its marker column, {@code prefix} before it) that it is a delete. */
  public String isDeleteSql(String prefix) {
    return "coalesce(" + prefix + column.name() + " = " + sql() + ", false)";
  }

  /** The marker column's value in the change log. */
  public Object logged(boolean deleted) {
    if (deleted) {
      return value;
    }
    return value instanceof Boolean b ? !b : null;
  }
}
