package io.tidemark.audit;

import io.tidemark.core.Schema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Rows the driver holds, as a DuckDB table, and DuckDB's answers as strings: how the audits hand their few rows
 * to an engine independent of Spark. Timestamps go in as UTC wall-clock time, as Spark's session shows them.
 */
public final class DuckDbRows {
  private DuckDbRows() {}

  /** (Re)creates table {@code name} with the columns of {@code schema} and the rows (values in that order). */
  public static void create(Connection db, String name, Schema schema, List<List<Object>> rows) throws SQLException {
    try (Statement st = db.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE " + name + " (" + columns(schema) + ")");
    }
    if (rows.isEmpty()) {
      return;
    }
    String marks = String.join(", ", Collections.nCopies(schema.size(), "?"));
    try (PreparedStatement insert = db.prepareStatement("INSERT INTO " + name + " VALUES (" + marks + ")")) {
      for (List<Object> r : rows) {
        for (int i = 0; i < schema.size(); i++) {
          Object v = r.get(i);
          insert.setObject(i + 1, v instanceof Instant t ? t.atOffset(ZoneOffset.UTC).toLocalDateTime() : v);
        }
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** The first column of every row of the query, as text ("null" for a null). */
  public static List<String> firstColumn(Connection db, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(String.valueOf(rs.getString(1)));
      }
    }
    return out;
  }

  /** The columns of a schema in DuckDB's types (timestamps without a zone: UTC wall-clock time). */
  static String columns(Schema schema) {
    return schema.columns().stream().map(c -> c.name() + " " + c.type().duckDb())
        .collect(Collectors.joining(", "));
  }
}
