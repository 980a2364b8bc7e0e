package io.tidemark.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RestatementAuditTest {
  /** The DuckDB stand-in for an empty raw archive has the archive's columns, arrival included. */
  @Test
  void duckDbFallbackHasEveryColumnOfTheRawArchive() throws Exception {
    TableDefinition raw = TableCatalog.rawEvents(TableName.parse("raw.events"));
    List<String> columns = new ArrayList<>();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      st.execute("CREATE TABLE raw (" + RestatementAudit.duckDbColumns(raw) + ")");
      try (ResultSet rs = st.executeQuery("SELECT column_name FROM (DESCRIBE raw)")) {
        while (rs.next()) {
          columns.add(rs.getString(1));
        }
      }
    }
    assertThat(columns).containsExactlyElementsOf(raw.columns().keySet()).contains("arrival");
  }
}
