package io.tidemark.audit;

import io.tidemark.core.Column;
import io.tidemark.core.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * DuckDB's answers in the core's types, whatever type DuckDB gave them (a sum of integers is a HUGEINT there, a
 * bigint here): what an audit compares with the rows the branch holds. SQL written through {@link #select} hands a
 * timestamp over as epoch microseconds and a date as its text, so no driver's time types get in the way.
 */
public final class DuckDbValues {
  private DuckDbValues() {}

  /** The SQL that selects {@code expression} of {@code type} so that {@link #read} reads it. */
  public static String select(String expression, Type type) {
    return switch (type.kind()) {
      case TIMESTAMP -> "epoch_us(" + expression + ")";
      case DATE -> "CAST(" + expression + " AS VARCHAR)";
      case DECIMAL -> "CAST(" + expression + " AS DECIMAL(" + type.precision() + "," + type.scale() + "))";
      default -> expression;
    };
  }

  /** Column {@code i} of the row, selected by {@link #select}, as a value of {@code type} (null for a null). */
  public static Object read(ResultSet rs, int i, Type type) throws SQLException {
    Object v = rs.getObject(i);
    if (v == null) {
      return null;
    }
    return switch (type.kind()) {
      case INT -> ((Number) v).intValue();
      case BIGINT -> v instanceof BigInteger b ? b.longValue() : ((Number) v).longValue();
      case DOUBLE -> ((Number) v).doubleValue();
      case DECIMAL -> (v instanceof BigDecimal d ? d : new BigDecimal(v.toString())).setScale(type.scale());
      case STRING -> v.toString();
      case BOOLEAN -> v instanceof Boolean b ? b : Boolean.parseBoolean(v.toString());
      case DATE -> LocalDate.parse(v.toString());
      case TIMESTAMP -> io.tidemark.core.Times.ofMicros(((Number) v).longValue());
      default -> throw new IllegalArgumentException("no value of " + type.sql() + " is read from DuckDB");
    };
  }

  /** A column's name quoted for DuckDB. */
  public static String quoted(Column c) {
    return "\"" + c.name() + "\"";
  }

  /** A value for messages: times as instants. */
  public static String show(Object v) {
    return v instanceof Instant t ? t.toString() : String.valueOf(v);
  }
}
