package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A change of a dimension ({@link DimensionSchema}) as the SCD2 history reads it: normalized, so a delete carries no
 * attributes (what it said besides does not matter).
 *
 * @param key the key's values, in the key's order
 * @param at the change time
 * @param deleted whether it deletes the key
 * @param attributes the tracked attributes' values, in their order (all null on a delete)
 */
public record Change(List<Object> key, Instant at, boolean deleted, List<Object> attributes) {
  public Change {
    key = Collections.unmodifiableList(new ArrayList<>(key));
    List<Object> values = new ArrayList<>(attributes);
    if (deleted) {
      Collections.fill(values, null);
    }
    attributes = Collections.unmodifiableList(values);
  }

  public static Change set(List<Object> key, Instant at, List<Object> attributes) {
    return new Change(key, at, false, attributes);
  }

  public static Change delete(List<Object> key, Instant at, int attributes) {
    return new Change(key, at, true, Collections.nCopies(attributes, null));
  }

  /** The same state as {@code o} sets: both deletes, or the same attributes as SQL compares them. */
  public boolean sameState(Change o) {
    return deleted == o.deleted && (deleted || SqlOrder.same(attributes, o.attributes));
  }

  /**
   * The same change as SQL's null-safe equality tells changes apart ({@link SqlOrder#same}: -0.0 is 0.0), as the Spark
   * plans do (a change log's join, a distinct), so that both engines apply a change once.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Change c && deleted == c.deleted && Objects.equals(at, c.at) && SqlOrder.same(key, c.key)
        && SqlOrder.same(attributes, c.attributes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(SqlOrder.hash(key), at, deleted, SqlOrder.hash(attributes));
  }
}
