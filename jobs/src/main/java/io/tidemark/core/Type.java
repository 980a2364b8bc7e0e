package io.tidemark.core;

/**
 * A column's type, named as Spark SQL names it in a table's definition (and so as Iceberg keeps it), as DuckDB names
 * it when an audit hands it rows, and as a rejected line's reason says what a field is not.
 */
public enum Type {
  INT("INT", "INTEGER", "an INT"),
  BIGINT("BIGINT", "BIGINT", "a bigint"),
  DOUBLE("DOUBLE", "DOUBLE", "a number"),
  STRING("STRING", "VARCHAR", "a string"),
  BOOLEAN("BOOLEAN", "BOOLEAN", "a boolean"),
  /** An instant: UTC everywhere (Spark's session, DuckDB's wall-clock time, Iceberg's timestamptz). */
  TIMESTAMP("TIMESTAMP", "TIMESTAMP", "a timestamp"),
  /** Counts by name, e.g. rows written per table. */
  COUNTS("MAP<STRING, BIGINT>", "MAP(VARCHAR, BIGINT)", "a map of counts"),
  /** Names, e.g. of tables. */
  NAMES("ARRAY<STRING>", "VARCHAR[]", "a list of names");

  private final String sql;
  private final String duckDb;
  private final String phrase;

  Type(String sql, String duckDb, String phrase) {
    this.sql = sql;
    this.duckDb = duckDb;
    this.phrase = phrase;
  }

  /** Spark SQL's name of the type, as {@code DataType.sql()} gives it back for a table's column. */
  public String sql() {
    return sql;
  }

  /** DuckDB's name of the type (a timestamp as UTC wall-clock time). */
  public String duckDb() {
    return duckDb;
  }

  /** What a value of the type is, as a rejected line's reason says: "amount is not a number". */
  public String phrase() {
    return phrase;
  }
}
