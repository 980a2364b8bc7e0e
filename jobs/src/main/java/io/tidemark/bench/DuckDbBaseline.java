package io.tidemark.bench;

import java.util.stream.Collectors;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.core.Type;
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

  private static final FactFeed EVENTS = SeedPipeline.BUILT_IN.events();
  private static final Aggregation COUNTS = SeedPipeline.BUILT_IN.counts().rule();

  /** The seed's events' valid lines, as DuckDB reads them: the feed's columns, its required ones there. */
  private static String source(Path dir) {
    String columns = EVENTS.schema().columns().columns().stream().map(c -> c.name() + ": '"
        + (c.type().equals(Type.TIMESTAMP) ? "TIMESTAMPTZ" : c.type().duckDb()) + "'")
        .collect(Collectors.joining(", "));
    String required = EVENTS.schema().required().stream().map(c -> c.name() + " IS NOT NULL")
        .collect(Collectors.joining(" AND "));
    return "read_json('" + dir.toAbsolutePath() + "/**/*.jsonl', format = 'newline_delimited', ignore_errors = true, "
        + "columns = {" + columns + "}) WHERE " + required;
  }

  /** Seconds to dedup on the key (first row per key) into a Parquet file. */
  static double dedup(Path dir, Path out) throws SQLException {
    return time("COPY (SELECT DISTINCT ON (" + EVENTS.schema().keyList() + ") " + EVENTS.schema().columns().columnList()
        + " FROM "
        + source(dir) + ") TO '" + out.toAbsolutePath() + "' (FORMAT parquet)");
  }

  /** Seconds to count per group and window into a Parquet file. */
  static double counts(Path dir, Path out) throws SQLException {
    return time("COPY (SELECT " + String.join(", ", COUNTS.groupBy().stream().map(Column::name).toList())
        + ", time_bucket(INTERVAL " + COUNTS.windows().size().toSeconds() + " SECOND, " + EVENTS.schema().eventTime()
        + ") AS " + COUNTS.windowStart() + ", count(*) AS " + COUNTS.measures().get(0).name() + " FROM "
        + source(dir) + " GROUP BY ALL) TO '" + out.toAbsolutePath() + "' (FORMAT parquet)");
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
