package io.tidemark.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
import io.tidemark.pipeline.Feed;
import io.tidemark.testing.Seed;
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
    List<TableDefinition> raws = new ArrayList<>();
    for (Feed f : Seed.PIPELINE.feeds()) {
      raws.add(TableCatalog.raw(f.raw().table(), f.schema()));
    }
    // a feed of every type a file declares, keyed on two columns
    Column id = Column.of("id", Type.BIGINT);
    Column day = Column.of("day", Type.DATE);
    Column at = Column.of("at", Type.TIMESTAMP);
    Schema columns = Schema.of(id, day, Column.of("price", Type.decimal(12, 3)), Column.of("n", Type.INT),
        Column.of("x", Type.DOUBLE), Column.of("ok", Type.BOOLEAN), Column.of("s", Type.STRING), at);
    raws.add(TableCatalog.raw(io.tidemark.config.TableName.parse("raw.orders"),
        new FeedSchema("orders", columns, List.of(id, day), at, List.of(id, day, at))));
    for (TableDefinition raw : raws) {
      List<String> got = new ArrayList<>();
      List<String> types = new ArrayList<>();
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
        st.execute("CREATE TABLE raw (" + RestatementAudit.duckDbColumns(raw.columns()) + ")");
        try (ResultSet rs = st.executeQuery("SELECT column_name, column_type FROM (DESCRIBE raw)")) {
          while (rs.next()) {
            got.add(rs.getString(1));
            types.add(rs.getString(2));
          }
        }
      }
      assertThat(got).as(raw.name().toString()).containsExactlyElementsOf(raw.columns().keySet())
          .contains("arrival");
      if (raw.name().table().equals("orders")) {
        assertThat(types).as("each column in its DuckDB type").startsWith("BIGINT", "DATE", "DECIMAL(12,3)",
            "INTEGER", "DOUBLE", "BOOLEAN", "VARCHAR", "TIMESTAMP WITH TIME ZONE");
      }
    }
  }
}
