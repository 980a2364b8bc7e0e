package io.tidemark.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An independent oracle in DuckDB for the event streams. It reads the same JSON-lines files (local copies),
 * decides validity with its own JSON functions, and replays Spark's watermark rules run by run:
 * <ul>
 *   <li>the watermark of run k is the maximum event time of all valid events of runs before k, minus the
 *       delay (nothing is late in the first run);</li>
 *   <li>counts: an event counts unless its window's end is at or before the watermark of its run; a window
 *       is in the table once its end is at or before the final watermark;</li>
 *   <li>dedup: an event is dropped when its time is at or before its run's watermark, or when its id was
 *       kept earlier and is still remembered (kept time + delay after the run's watermark).</li>
 * </ul>
 */
public final class DuckOracle implements AutoCloseable {
  private final Connection db;

  /** Loads the files of each run; {@code runs.get(k)} holds the files that arrived before run k+1. */
  public DuckOracle(List<List<Path>> runs) throws SQLException {
    db = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("CREATE TABLE lines (run INTEGER, file VARCHAR, line VARCHAR)");
      for (int k = 0; k < runs.size(); k++) {
        for (Path f : runs.get(k)) {
          st.execute("INSERT INTO lines SELECT " + (k + 1) + ", filename, unnest(string_split("
              + "regexp_replace(content, '\\n$', ''), chr(10))) FROM read_text('" + f.toAbsolutePath() + "')");
        }
      }
      // json_* functions fail on invalid JSON and DuckDB does not short-circuit CASE: null it out first
      st.execute("""
          CREATE TABLE parsed AS
          WITH v AS (SELECT run, line, CASE WHEN json_valid(line) THEN line END AS v FROM lines),
               o AS (SELECT run, line, CASE WHEN json_type(v) = 'OBJECT' THEN v END AS j FROM v)
          SELECT run, line,
            CASE
              WHEN trim(line) = '' THEN 'blank line'
              WHEN j IS NULL THEN 'not a JSON object'
              WHEN coalesce(json_type(j, '$.event_id'), 'NULL') = 'NULL' THEN 'missing event_id'
              WHEN json_type(j, '$.event_id') NOT IN ('BIGINT', 'UBIGINT')
                OR TRY_CAST(json_extract_string(j, '$.event_id') AS INTEGER) IS NULL THEN 'event_id is not an INT'
              WHEN coalesce(json_type(j, '$.event_ts'), 'NULL') = 'NULL' THEN 'missing event_ts'
              WHEN json_type(j, '$.event_ts') <> 'VARCHAR'
                OR TRY_CAST(json_extract_string(j, '$.event_ts') AS TIMESTAMPTZ) IS NULL
                THEN 'event_ts is not a timestamp'
            END AS reason,
            TRY_CAST(json_extract_string(j, '$.event_id') AS INTEGER) AS event_id,
            json_extract_string(j, '$.company_id') AS company_id,
            -- an amount that is not a number is an optional field that did not convert: null, the line valid
            CASE WHEN json_type(j, '$.amount') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
              THEN TRY_CAST(json_extract_string(j, '$.amount') AS DOUBLE) END AS amount,
            CAST(TRY_CAST(json_extract_string(j, '$.event_ts') AS TIMESTAMPTZ) AS TIMESTAMP) AS event_ts
          FROM o""");
      st.execute("CREATE TABLE ev AS SELECT run, event_id, company_id, amount, event_ts FROM parsed "
          + "WHERE reason IS NULL");
    }
  }

  /** Lines per rejection reason (the part before any ':'), and "valid" for the valid ones. */
  public Map<String, Long> reasons() throws SQLException {
    return longs("SELECT coalesce(reason, 'valid'), count(*) FROM parsed GROUP BY 1 ORDER BY 1");
  }

  public long lines() throws SQLException {
    return longs("SELECT 'n', count(*) FROM lines").get("n");
  }

  /** The watermark of each run: micros since the epoch, or Long.MIN_VALUE for none yet. */
  private String watermarks(Duration delay) {
    return "WITH m AS (SELECT run, max(event_ts) AS m FROM ev GROUP BY run), "
        + "r AS (SELECT DISTINCT run FROM lines), "
        + "wm AS (SELECT r.run, (SELECT max(m.m) FROM m WHERE m.run < r.run) - INTERVAL " + delay.toSeconds()
        + " SECOND AS w FROM r) ";
  }

  /** "company|w_start|n" for every window the counts table must hold after the last run. */
  public List<String> counts(Duration delay, Duration window) throws SQLException {
    long w = window.toSeconds();
    String sql = watermarks(delay)
        + ", fin AS (SELECT max(event_ts) - INTERVAL " + delay.toSeconds() + " SECOND AS w FROM ev), "
        + "win AS (SELECT ev.*, to_timestamp(floor(epoch(event_ts) / " + w + ") * " + w + ")::TIMESTAMPTZ::TIMESTAMP "
        + "AS w_start FROM ev) "
        + "SELECT coalesce(company_id, 'NULL') || '|' || strftime(w_start, '%Y-%m-%d %H:%M:%S') || '|' || count(*) "
        + "FROM win JOIN wm USING (run) "
        + "WHERE (wm.w IS NULL OR w_start + INTERVAL " + w + " SECOND > wm.w) "
        + "AND w_start + INTERVAL " + w + " SECOND <= (SELECT w FROM fin) "
        + "GROUP BY company_id, w_start ORDER BY 1";
    return strings(sql);
  }

  /** "event_id|company_id|amount|event_ts" for every row the dedup table must hold after the last run. */
  public List<String> dedup(Duration delay) throws SQLException {
    try (Statement st = db.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE kept (event_id INTEGER, company_id VARCHAR, amount DOUBLE, "
          + "event_ts TIMESTAMP, run INTEGER)");
      st.execute("CREATE OR REPLACE TABLE wms AS " + watermarks(delay) + "SELECT * FROM wm");
      List<String> runs = strings("SELECT DISTINCT run FROM lines ORDER BY run");
      for (String run : runs) {
        // the run's watermark; ids kept earlier are still remembered while kept time + delay > watermark
        st.execute("INSERT INTO kept SELECT DISTINCT ON (event_id) event_id, company_id, amount, event_ts, run "
            + "FROM ev, (SELECT w FROM wms WHERE run = " + run + ") wm "
            + "WHERE ev.run = " + run + " AND (wm.w IS NULL OR ev.event_ts > wm.w) "
            + "AND event_id NOT IN (SELECT event_id FROM kept WHERE wm.w IS NULL "
            + "OR kept.event_ts + INTERVAL " + delay.toSeconds() + " SECOND > wm.w) "
            + "ORDER BY event_id");
      }
    }
    return strings("SELECT event_id || '|' || coalesce(company_id, 'NULL') || '|' || coalesce(CAST(amount AS VARCHAR), 'NULL') "
        + "|| '|' || strftime(event_ts, '%Y-%m-%d %H:%M:%S') FROM kept ORDER BY event_id, run");
  }

  /** Any query with one string column, for checks of the tests' own. */
  public List<String> strings(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private Map<String, Long> longs(String sql) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  @Override
  public void close() throws SQLException {
    db.close();
  }
}
