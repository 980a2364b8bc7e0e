package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A version of a key in an SCD2 dimension ({@link DimensionSchema#version}). {@code current} is a Boolean: a version
 * written by hand may lack it, and the checks must say so rather than fail to read it.
 *
 * @param key the key's values
 * @param attributes the tracked attributes' values, in their order
 */
public record Version(List<Object> key, List<Object> attributes, Instant validFrom, Instant validTo,
                      Boolean current) {
  public Version {
    key = Collections.unmodifiableList(new ArrayList<>(key));
    attributes = Collections.unmodifiableList(new ArrayList<>(attributes));
  }

  /**
   * The same version as SQL's null-safe equality tells rows apart ({@link SqlOrder#same}: -0.0 is 0.0), as the Spark
   * plan of the difference does.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof Version v && SqlOrder.same(key, v.key) && SqlOrder.same(attributes, v.attributes)
        && java.util.Objects.equals(validFrom, v.validFrom) && java.util.Objects.equals(validTo, v.validTo)
        && java.util.Objects.equals(current, v.current);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(SqlOrder.hash(key), SqlOrder.hash(attributes), validFrom, validTo, current);
  }

  /** Its identity in the dimension: the key and when it starts (what a MERGE matches on). */
  public Id id() {
    return new Id(key, validFrom);
  }

  /** A version's identity. */
  public record Id(List<Object> key, Instant validFrom) {}

  /** The values in the order of the version's columns: the key, the attributes, valid from, valid to, current. */
  public List<Object> values() {
    List<Object> out = new ArrayList<>(key);
    out.addAll(attributes);
    out.add(validFrom);
    out.add(validTo);
    out.add(current);
    return out;
  }
}
