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

  /** The marker column's value in the change log. */
  public Object logged(boolean deleted) {
    if (deleted) {
      return value;
    }
    return value instanceof Boolean b ? !b : null;
  }
}
