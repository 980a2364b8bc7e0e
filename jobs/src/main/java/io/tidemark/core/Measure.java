package io.tidemark.core;

import java.util.Locale;

/**
 * One value a windowed aggregate keeps per group and window: how many rows ({@code count}), or the sum, the least or
 * the greatest of a column's values there (nulls left out, as SQL's aggregates leave them; none but nulls: null).
 *
 * @param name the output column's name
 * @param function what it computes
 * @param of the column it computes over; null for a count (which counts rows)
 */
public record Measure(String name, Function function, Column of) {
  /** What a measure computes. */
  public enum Function {
    COUNT, SUM, MIN, MAX;

    /** As a pipeline file names it. */
    public String fileName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Function parse(String text) {
      for (Function f : values()) {
        if (f.fileName().equals(text)) {
          return f;
        }
      }
      throw new IllegalArgumentException("unknown function '" + text + "' (expected count, sum, min or max)");
    }
  }

  public Measure {
    if (function == Function.COUNT) {
      if (of != null) {
        throw new IllegalArgumentException(name + ": a count counts rows and takes no column");
      }
    } else if (of == null) {
      throw new IllegalArgumentException(name + ": " + function.fileName() + " needs a column");
    } else if (function == Function.SUM && !of.type().isNumeric()) {
      throw new IllegalArgumentException(name + ": sum over " + of.name() + ", " + of.type().phrase()
          + " (sum needs int, long, double or decimal)");
    } else if (!of.type().isOrdered()) {
      throw new IllegalArgumentException(name + ": " + function.fileName() + " over " + of.name() + ", "
          + of.type().phrase() + " (it needs a number, a string, a date or a timestamp)");
    }
  }

  public static Measure count(String name) {
    return new Measure(name, Function.COUNT, null);
  }

  /**
   * The type of its values, as Spark's aggregate gives it: a count and a sum of integers a long, a sum of doubles a
   * double, a sum of a decimal(p,s) a decimal(p+10,s) (at most 38 digits); a minimum and a maximum the column's type.
   */
  public Type type() {
    return switch (function) {
      case COUNT -> Type.BIGINT;
      case SUM -> switch (of.type().kind()) {
        case INT, BIGINT -> Type.BIGINT;
        case DECIMAL -> Type.decimal(Math.min(Type.MAX_PRECISION, of.type().precision() + 10), of.type().scale());
        default -> Type.DOUBLE;
      };
      case MIN, MAX -> of.type();
    };
  }

  /** The output column. */
  public Column column() {
    return Column.of(name, type());
  }

  /** Whether two of its values are the same result: doubles within a relative 1e-9 (sums in another order). */
  public boolean same(Object a, Object b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a instanceof Double x && b instanceof Double y) {
      return SqlOrder.closeDoubles(x, y);
    }
    return a instanceof java.math.BigDecimal x && b instanceof java.math.BigDecimal y ? x.compareTo(y) == 0
        : a.equals(b);
  }

  @Override
  public String toString() {
    return function == Function.COUNT ? name + " = count(*)" : name + " = " + function.fileName() + "(" + of + ")";
  }
}
