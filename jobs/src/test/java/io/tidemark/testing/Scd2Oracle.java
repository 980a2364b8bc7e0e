package io.tidemark.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The SCD2 history in DuckDB, rebuilt from the change lines of the landed files, with DuckDB's own JSON rules:
 * each change sets a company's state at its change time, repeats merge, a delete closes; two changes of one
 * company at the same instant: the delete wins, else the greater (name, tier).
 */
public final class Scd2Oracle implements AutoCloseable {
  private final Connection db;

  public Scd2Oracle(List<Path> files) throws SQLException {
    db = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("CREATE TABLE lines (line VARCHAR)");
      for (Path f : files) {
        st.execute("INSERT INTO lines SELECT unnest(string_split(regexp_replace(content, '\\n$', ''), chr(10))) "
            + "FROM read_text('" + f.toAbsolutePath() + "')");
      }
      st.execute("""
          CREATE TABLE changes AS
          WITH v AS (SELECT CASE WHEN json_valid(line) THEN line END AS v FROM lines),
               o AS (SELECT CASE WHEN json_type(v) = 'OBJECT' THEN v END AS j FROM v)
          SELECT json_extract_string(j, '$.company_id') AS company_id,
                 json_extract_string(j, '$.name') AS name, json_extract_string(j, '$.tier') AS tier,
                 CAST(TRY_CAST(json_extract_string(j, '$.change_ts') AS TIMESTAMPTZ) AS TIMESTAMP) AS change_ts,
                 coalesce(TRY_CAST(json_extract_string(j, '$.deleted') AS BOOLEAN), false) AS deleted, j AS line
          FROM o
          WHERE j IS NOT NULL AND coalesce(json_type(j, '$.company_id'), 'NULL') <> 'NULL'
            AND json_type(j, '$.change_ts') = 'VARCHAR'
            AND TRY_CAST(json_extract_string(j, '$.change_ts') AS TIMESTAMPTZ) IS NOT NULL
            AND coalesce(json_type(j, '$.deleted'), 'NULL') IN ('NULL', 'BOOLEAN')""");
    }
  }

  public long validChanges() throws SQLException {
    return Long.parseLong(strings("SELECT CAST(count(*) AS VARCHAR) FROM changes").get(0));
  }

  /** "company|name|tier|valid_from|valid_to|is_current" rows, sorted. */
  public List<String> history() throws SQLException {
    return history(List.of());
  }

  /**
   * The same with string keys of the lines tracked as attributes after the tier (promoted into the feed), each a
   * column of the row after the tier: "company|name|tier|key...|valid_from|valid_to|is_current".
   */
  public List<String> history(List<String> keys) throws SQLException {
    StringBuilder extracted = new StringBuilder();
    StringBuilder order = new StringBuilder();
    StringBuilder same = new StringBuilder();
    StringBuilder shown = new StringBuilder();
    for (int i = 0; i < keys.size(); i++) {
      String p = "p" + i;
      extracted.append(", CASE WHEN deleted THEN NULL ELSE json_extract_string(line, '$.\"").append(keys.get(i))
          .append("\"') END AS ").append(p);
      order.append(", ").append(p).append(" DESC NULLS LAST");
      same.append(" AND ").append(p).append(" IS NOT DISTINCT FROM lag(").append(p).append(") OVER w");
      shown.append(" || coalesce(").append(p).append(", 'NULL') || '|'");
    }
    return strings("""
        WITH c AS (SELECT company_id, CASE WHEN deleted THEN NULL ELSE name END AS name,
                          CASE WHEN deleted THEN NULL ELSE tier END AS tier, change_ts, deleted %s FROM changes),
             settled AS (SELECT * FROM c QUALIFY row_number() OVER (PARTITION BY company_id, change_ts
                         ORDER BY deleted DESC, name DESC NULLS LAST, tier DESC NULLS LAST %s) = 1),
             marked AS (SELECT *, deleted IS NOT DISTINCT FROM lag(deleted) OVER w
                                  AND name IS NOT DISTINCT FROM lag(name) OVER w
                                  AND tier IS NOT DISTINCT FROM lag(tier) OVER w %s AS repeat
                        FROM settled WINDOW w AS (PARTITION BY company_id ORDER BY change_ts)),
             versions AS (SELECT *, lead(change_ts) OVER (PARTITION BY company_id ORDER BY change_ts) AS valid_to
                          FROM marked WHERE NOT repeat)
        SELECT company_id || '|' || coalesce(name, 'NULL') || '|' || coalesce(tier, 'NULL') || '|' %s
               || strftime(change_ts, '%%Y-%%m-%%d %%H:%%M:%%S') || '|'
               || coalesce(strftime(valid_to, '%%Y-%%m-%%d %%H:%%M:%%S'), 'NULL') || '|'
               || CASE WHEN valid_to IS NULL THEN 'true' ELSE 'false' END AS r
        FROM versions WHERE NOT deleted ORDER BY r""".formatted(extracted, order, same, shown));
  }

  private List<String> strings(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  @Override
  public void close() throws SQLException {
    db.close();
  }
}
