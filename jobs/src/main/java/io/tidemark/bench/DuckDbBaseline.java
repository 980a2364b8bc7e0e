package io.tidemark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The same dedup and windowed count in DuckDB over the same JSON-lines files, written to Parquet: the
 * single-node baseline the streams are measured against. Malformed lines are skipped, as the streams skip them.
 */
final class DuckDbBaseline {
  private DuckDbBaseline() {}

  private static String source(Path dir) {
    return "read_json('" + dir.toAbsolutePath() + "/**/*.jsonl', format = 'newline_delimited', ignore_errors = true, "
        + "columns = {event_id: 'INTEGER', company_id: 'VARCHAR', amount: 'DOUBLE', event_ts: 'TIMESTAMPTZ'}) "
        + "WHERE event_id IS NOT NULL AND event_ts IS NOT NULL";
  }

  /** Seconds to dedup on event_id (first row per id) into a Parquet file. */
  static double dedup(Path dir, Path out) throws SQLException {
    return time("COPY (SELECT DISTINCT ON (event_id) event_id, company_id, amount, event_ts FROM " + source(dir)
        + ") TO '" + out.toAbsolutePath() + "' (FORMAT parquet)");
  }

  /** Seconds to count per company and window into a Parquet file. */
  static double counts(Path dir, Path out, long windowSeconds) throws SQLException {
    return time("COPY (SELECT company_id, time_bucket(INTERVAL " + windowSeconds + " SECOND, event_ts) AS w_start, "
        + "count(*) AS n FROM " + source(dir) + " GROUP BY ALL) TO '" + out.toAbsolutePath() + "' (FORMAT parquet)");
  }

  private static double time(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
      st.execute("SET threads = 2");
      st.execute("SET TimeZone = 'UTC'");
      long t0 = System.nanoTime();
      st.execute(sql);
      return (System.nanoTime() - t0) / 1e9;
    } finally {
      try {
        Files.deleteIfExists(Path.of(sql.replaceAll(".* TO '([^']+)'.*", "$1")));
      } catch (Exception e) {
        // only a scratch file
      }
    }
  }
}
