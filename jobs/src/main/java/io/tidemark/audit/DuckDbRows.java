package io.tidemark.audit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Rows the driver holds, as a DuckDB table, and DuckDB's answers as strings: how the audits hand their few rows
 * to an engine independent of Spark. Timestamps go in as UTC wall-clock time, as Spark's session shows them.
 */
final class DuckDbRows {
  private DuckDbRows() {}

  /** (Re)creates table {@code name} with the columns of {@code schema} and the rows (fields in that order). */
  static void create(Connection db, String name, StructType schema, List<Row> rows) throws SQLException {
    try (Statement st = db.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE " + name + " (" + columns(schema) + ")");
    }
    if (rows.isEmpty()) {
      return;
    }
    String marks = String.join(", ", Collections.nCopies(schema.size(), "?"));
    try (PreparedStatement insert = db.prepareStatement("INSERT INTO " + name + " VALUES (" + marks + ")")) {
      for (Row r : rows) {
        for (int i = 0; i < schema.size(); i++) {
          Object v = r.get(i);
          insert.setObject(i + 1, v instanceof Timestamp t ? t.toInstant().atOffset(ZoneOffset.UTC).toLocalDateTime()
              : v);
        }
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** The first column of every row of the query, as text ("null" for a null). */
  static List<String> firstColumn(Connection db, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(String.valueOf(rs.getString(1)));
      }
    }
    return out;
  }

  /** The columns of a schema in DuckDB's types (timestamps without a zone: UTC wall-clock time). */
  static String columns(StructType schema) {
    List<String> cols = new ArrayList<>();
    for (StructField f : schema.fields()) {
      cols.add(f.name() + " " + type(f.dataType()));
    }
    return String.join(", ", cols);
  }

  private static String type(DataType t) {
    if (t.equals(DataTypes.IntegerType)) {
      return "INTEGER";
    }
    if (t.equals(DataTypes.LongType)) {
      return "BIGINT";
    }
    if (t.equals(DataTypes.DoubleType)) {
      return "DOUBLE";
    }
    if (t.equals(DataTypes.BooleanType)) {
      return "BOOLEAN";
    }
    if (t.equals(DataTypes.TimestampType)) {
      return "TIMESTAMP";
    }
    return "VARCHAR";
  }
}
