package io.tidemark.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The orders Spark SQL sorts and compares by, for rules that settle on the driver what Spark settles elsewhere and
 * must agree with it to the row: strings by their UTF-8 bytes (code point order, not Java's UTF-16 order), doubles
 * with -0.0 equal to 0.0 and NaN above everything, and ascending orders with nulls first.
 */
public final class SqlOrder {
  public static final Comparator<String> STRINGS = (a, b) ->
      Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  public static final Comparator<Double> DOUBLES = (a, b) -> a.doubleValue() == b.doubleValue() ? 0
      : Double.compare(a, b);

  private SqlOrder() {}

  /**
   * Values of one of the feeds' types in Spark's order: strings and doubles as above, the others (integers, booleans,
   * instants) as Java orders them, which is Spark's.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static final Comparator<Object> VALUES = (a, b) -> {
    if (a instanceof String x && b instanceof String y) {
      return STRINGS.compare(x, y);
    }
    if (a instanceof Double x && b instanceof Double y) {
      return DOUBLES.compare(x, y);
    }
    return ((Comparable) a).compareTo(b);
  };

  /** Lists of values compared one by one, each descending with nulls last (as Spark's {@code x DESC NULLS LAST}). */
  public static Comparator<java.util.List<Object>> valuesDescendingNullsLast() {
    return oneByOne(Comparator.nullsLast(VALUES.reversed()));
  }

  /** Lists of values compared one by one, each ascending with nulls first (as Spark's {@code ORDER BY x}). */
  public static Comparator<java.util.List<Object>> valuesAscendingNullsFirst() {
    return oneByOne(Comparator.nullsFirst(VALUES));
  }

  private static Comparator<java.util.List<Object>> oneByOne(Comparator<Object> one) {
    return (a, b) -> {
      for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
        int c = one.compare(a.get(i), b.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(a.size(), b.size());
    };
  }

  /** As Spark's {@code ORDER BY x} (ascending, nulls first). */
  public static <T> Comparator<T> ascending(Comparator<? super T> order) {
    return Comparator.nullsFirst(order);
  }

  /**
   * Whether two doubles are the same result of sums taken in different orders: within a relative 1e-9 (as Spark's
   * equality otherwise: -0.0 equals 0.0, NaN equals NaN).
   */
  public static boolean closeDoubles(double a, double b) {
    if (DOUBLES.compare(a, b) == 0) {
      return true;
    }
    return Math.abs(a - b) <= RELATIVE * Math.max(Math.abs(a), Math.abs(b));
  }

  /** How far apart two floating sums of the same values may be, relative to the larger. */
  public static final double RELATIVE = 1e-9;

  /**
   * Whether two lists of values are equal as SQL's null-safe equality has them, value by value: -0.0 is 0.0, NaN is
   * NaN, decimals by value (Java's equality tells the first and the last apart).
   */
  public static boolean same(java.util.List<Object> a, java.util.List<Object> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      boolean same = x == null || y == null ? x == y
          : x instanceof Double dx && y instanceof Double dy ? DOUBLES.compare(dx, dy) == 0
          : x instanceof java.math.BigDecimal bx && y instanceof java.math.BigDecimal by ? bx.compareTo(by) == 0
          : x.equals(y);
      if (!same) {
        return false;
      }
    }
    return true;
  }

  /** A hash of values that {@link #same} holds equal. */
  public static int hash(java.util.List<Object> values) {
    int h = 1;
    for (Object v : values) {
      Object n = v instanceof Double d && d == 0.0 ? (Object) 0.0
          : v instanceof java.math.BigDecimal d ? d.stripTrailingZeros() : v;
      h = 31 * h + java.util.Objects.hashCode(n);
    }
    return h;
  }

  /** Spark's equality in a join or a comparison of doubles: -0.0 equals 0.0, NaN equals NaN. */
  public static boolean sameDouble(Double a, Double b) {
    return a != null && b != null && DOUBLES.compare(a, b) == 0;
  }
}
