package io.tidemark.core;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A column's type, named as Spark SQL names it in a table's definition (and so as Iceberg keeps it), as DuckDB names
 * it when an audit hands it rows, as a pipeline file names it ({@link #parse}) and as a rejected line's reason says
 * what a field is not. A value of it is, on the driver, an Integer, Long, Double, BigDecimal (of the type's scale),
 * String, Boolean, LocalDate or Instant ({@link #javaClass}).
 */
public final class Type {
  /** What a type is, apart from a decimal's precision and scale. */
  public enum Kind { INT, BIGINT, DOUBLE, DECIMAL, STRING, BOOLEAN, DATE, TIMESTAMP, COUNTS, NAMES }

  public static final Type INT = new Type(Kind.INT, 0, 0);
  public static final Type BIGINT = new Type(Kind.BIGINT, 0, 0);
  public static final Type DOUBLE = new Type(Kind.DOUBLE, 0, 0);
  public static final Type STRING = new Type(Kind.STRING, 0, 0);
  public static final Type BOOLEAN = new Type(Kind.BOOLEAN, 0, 0);
  /** A calendar day, without a time or a zone. */
  public static final Type DATE = new Type(Kind.DATE, 0, 0);
  /** An instant: UTC everywhere (Spark's session, DuckDB's wall-clock time, Iceberg's timestamptz). */
  public static final Type TIMESTAMP = new Type(Kind.TIMESTAMP, 0, 0);
  /** Counts by name, e.g. rows written per table. */
  public static final Type COUNTS = new Type(Kind.COUNTS, 0, 0);
  /** Names, e.g. of tables. */
  public static final Type NAMES = new Type(Kind.NAMES, 0, 0);

  /** The most digits a decimal holds (Spark's, Iceberg's and DuckDB's limit). */
  public static final int MAX_PRECISION = 38;

  private static final Pattern DECIMAL = Pattern.compile("decimal\\(\\s*(\\d{1,2})\\s*,\\s*(\\d{1,2})\\s*\\)");

  private final Kind kind;
  private final int precision;
  private final int scale;

  private Type(Kind kind, int precision, int scale) {
    this.kind = kind;
    this.precision = precision;
    this.scale = scale;
  }

  /** A decimal of {@code precision} digits, {@code scale} of them after the point. */
  public static Type decimal(int precision, int scale) {
    if (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision) {
      throw new IllegalArgumentException("decimal(" + precision + "," + scale + ") needs 1 <= precision <= "
          + MAX_PRECISION + " and 0 <= scale <= precision");
    }
    return new Type(Kind.DECIMAL, precision, scale);
  }

  /** The types a pipeline file names, as it names them. */
  public static final String FILE_NAMES = "string, int, long, double, decimal(p,s), boolean, date, timestamp";

  /** A type as a pipeline file names it ({@link #FILE_NAMES}); an error naming what it is not. */
  public static Type parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    Matcher m = DECIMAL.matcher(t);
    if (m.matches()) {
      return decimal(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }
    return switch (t) {
      case "string" -> STRING;
      case "int" -> INT;
      case "long" -> BIGINT;
      case "double" -> DOUBLE;
      case "boolean" -> BOOLEAN;
      case "date" -> DATE;
      case "timestamp" -> TIMESTAMP;
      default -> throw new IllegalArgumentException("unknown type '" + text + "' (expected one of " + FILE_NAMES + ")");
    };
  }

  public Kind kind() {
    return kind;
  }

  public int precision() {
    return precision;
  }

  public int scale() {
    return scale;
  }

  /** Whether sums, minima and maxima of it are numbers. */
  public boolean isNumeric() {
    return kind == Kind.INT || kind == Kind.BIGINT || kind == Kind.DOUBLE || kind == Kind.DECIMAL;
  }

  /** Whether its values are ordered (a minimum and a maximum make sense). */
  public boolean isOrdered() {
    return isNumeric() || kind == Kind.DATE || kind == Kind.TIMESTAMP || kind == Kind.STRING;
  }

  /** Spark SQL's name of the type, as {@code DataType.sql()} gives it back for a table's column. */
  public String sql() {
    return switch (kind) {
      case DECIMAL -> "DECIMAL(" + precision + "," + scale + ")";
      case COUNTS -> "MAP<STRING, BIGINT>";
      case NAMES -> "ARRAY<STRING>";
      default -> kind.name();
    };
  }

  /** DuckDB's name of the type (a timestamp as UTC wall-clock time). */
  public String duckDb() {
    return switch (kind) {
      case INT -> "INTEGER";
      case STRING -> "VARCHAR";
      case DECIMAL -> "DECIMAL(" + precision + "," + scale + ")";
      case COUNTS -> "MAP(VARCHAR, BIGINT)";
      case NAMES -> "VARCHAR[]";
      default -> kind.name();
    };
  }

  /** The name a pipeline file gives it. */
  public String fileName() {
    return switch (kind) {
      case BIGINT -> "long";
      case DECIMAL -> "decimal(" + precision + "," + scale + ")";
      default -> kind.name().toLowerCase(Locale.ROOT);
    };
  }

  /** What a value of the type is, as a rejected line's reason says: "amount is not a number". */
  public String phrase() {
    return switch (kind) {
      case INT -> "an INT";
      case BIGINT -> "a bigint";
      case DOUBLE -> "a number";
      case DECIMAL -> "a decimal(" + precision + "," + scale + ")";
      case STRING -> "a string";
      case BOOLEAN -> "a boolean";
      case DATE -> "a date";
      case TIMESTAMP -> "a timestamp";
      case COUNTS -> "a map of counts";
      case NAMES -> "a list of names";
    };
  }

  /** The class of a value of the type on the driver. */
  public Class<?> javaClass() {
    return switch (kind) {
      case INT -> Integer.class;
      case BIGINT -> Long.class;
      case DOUBLE -> Double.class;
      case DECIMAL -> BigDecimal.class;
      case STRING -> String.class;
      case BOOLEAN -> Boolean.class;
      case DATE -> LocalDate.class;
      case TIMESTAMP -> Instant.class;
      case COUNTS -> java.util.Map.class;
      case NAMES -> java.util.List.class;
    };
  }

  /** A value's text that {@link #valueOf} reads back exactly ({@code 12.50}, {@code 2026-01-01T00:00:00Z}). */
  public String text(Object value) {
    return value instanceof BigDecimal d ? d.toPlainString() : String.valueOf(value);
  }

  /** A value of the type from its {@link #text}; an error for text that is not one. */
  public Object valueOf(String text) {
    return switch (kind) {
      case INT -> Integer.valueOf(text);
      case BIGINT -> Long.valueOf(text);
      case DOUBLE -> Double.valueOf(text);
      case DECIMAL -> new BigDecimal(text).setScale(scale, RoundingMode.UNNECESSARY);
      case STRING -> text;
      case BOOLEAN -> switch (text) {
        case "true" -> Boolean.TRUE;
        case "false" -> Boolean.FALSE;
        default -> throw new IllegalArgumentException("not a boolean: " + text);
      };
      case DATE -> LocalDate.parse(text);
      case TIMESTAMP -> Instant.parse(text);
      default -> throw new IllegalArgumentException("no value of " + sql() + " is read from text");
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Type t && t.kind == kind && t.precision == precision && t.scale == scale;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, precision, scale);
  }

  @Override
  public String toString() {
    return sql();
  }
}
