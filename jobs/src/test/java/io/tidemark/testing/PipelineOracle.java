package io.tidemark.testing;

import io.tidemark.core.Column;
import io.tidemark.core.Type;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a declared pipeline's tables must hold, computed by DuckDB from the landed lines alone, in SQL of its own: none
 * of tidemark's rules or readers is used, only the declaration's names and types (read by the test from the file).
 * A line is valid when it is a JSON object whose required fields are there and of their type; a value of the wrong
 * type in an optional field is null. What the tables must hold once every arrival streamed and a restatement ran:
 * <ul>
 *   <li>{@link #raw}: every valid line; {@link #invalid}: the others;</li>
 *   <li>{@link #deduplicated}: per key its first occurrence (by arrival, file and line);</li>
 *   <li>{@link #windows}: per group and event-time window (aligned on the epoch) the measures over every valid line,
 *       for the windows final under the watermark the stream reached (the newest event time less the delay), a
 *       group without a null value;</li>
 *   <li>{@link #history}: per key the SCD2 versions of every valid change: a change sets the tracked attributes from
 *       its time, a delete closes the key, of two changes at one instant a delete wins, else the greater attributes in
 *       order, nulls least; a change to the same state as the one before makes no version.</li>
 * </ul>
 * Rows come back as lists of values in Java's types (Long, Double, BigDecimal, String, Boolean, LocalDate, Instant).
 */
public final class PipelineOracle implements AutoCloseable {
  private static final Pattern ARRIVAL = Pattern.compile("arrival=(\\d{4})");
  private final Connection db;

  /** The lines landed under {@code dir} ({@code <feed>/arrival=NNNN/<file>}) for each of {@code feeds}. */
  public PipelineOracle(Path dir, List<String> feeds) throws SQLException, IOException {
    db = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      st.execute("CREATE TABLE lines (feed VARCHAR, arrival INTEGER, file VARCHAR, pos INTEGER, line VARCHAR)");
    }
    try (PreparedStatement insert = db.prepareStatement("INSERT INTO lines VALUES (?, ?, ?, ?, ?)")) {
      for (String feed : feeds) {
        Path root = dir.resolve(feed);
        if (!Files.isDirectory(root)) {
          continue;
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
          files = s.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
          Matcher m = ARRIVAL.matcher(f.toString());
          int arrival = m.find() ? Integer.parseInt(m.group(1)) : 0;
          String[] lines = new String(Files.readAllBytes(f), StandardCharsets.UTF_8).split("\n", -1);
          int n = lines.length > 0 && lines[lines.length - 1].isEmpty() ? lines.length - 1 : lines.length;
          for (int i = 0; i < n; i++) {
            insert.setString(1, feed);
            insert.setInt(2, arrival);
            insert.setString(3, f.getFileName().toString());
            insert.setInt(4, i);
            insert.setString(5, lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i]);
            insert.addBatch();
          }
        }
      }
      insert.executeBatch();
    }
  }

  /** A feed's declaration as the oracle reads it: its columns, which are required, its key and its time. */
  public record Feed(String name, List<Column> columns, List<String> required, List<String> key, String time) {}

  /** The SQL of a field's value as its declared type, null when the JSON holds another kind of value. */
  private static String value(Column c) {
    String path = "'$.\"" + c.name() + "\"'";
    String kind = "json_type(j, " + path + ")";
    String text = "json_extract_string(j, " + path + ")";
    Type t = c.type();
    return "CASE WHEN " + switch (t.kind()) {
      case INT, BIGINT -> kind + " IN ('BIGINT', 'UBIGINT') THEN TRY_CAST(" + text + " AS " + t.duckDb() + ")";
      case DOUBLE -> kind + " IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(" + text + " AS DOUBLE)";
      case DECIMAL -> kind + " IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(" + text + " AS " + t.duckDb() + ")";
      case STRING -> kind + " = 'VARCHAR' THEN " + text;
      case BOOLEAN -> kind + " = 'BOOLEAN' THEN TRY_CAST(" + text + " AS BOOLEAN)";
      case DATE -> kind + " = 'VARCHAR' THEN TRY_CAST(" + text + " AS DATE)";
      case TIMESTAMP -> kind + " = 'VARCHAR' THEN CAST(TRY_CAST(" + text + " AS TIMESTAMPTZ) AS TIMESTAMP)";
      default -> throw new IllegalArgumentException(t.sql());
    } + " END";
  }

  /** The feed's valid lines as table {@code valid_<feed>}: arrival, file, pos, then the columns. */
  private String valid(Feed f) throws SQLException {
    String table = "valid_" + f.name();
    String columns = f.columns().stream().map(c -> value(c) + " AS \"" + c.name() + "\"")
        .collect(Collectors.joining(", "));
    String required = f.required().stream().map(c -> "\"" + c + "\" IS NOT NULL").collect(Collectors.joining(" AND "));
    try (Statement st = db.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE " + table + " AS SELECT arrival, file, pos, " + columns + " FROM (SELECT "
          + "arrival, file, pos, CASE WHEN json_valid(line) AND json_type(line) = 'OBJECT' THEN line END AS j FROM "
          + "lines WHERE feed = '" + f.name() + "') WHERE j IS NOT NULL");
      st.execute("DELETE FROM " + table + " WHERE NOT (" + required + ")");
    }
    return table;
  }

  /** Every valid line of the feed: its columns' values. */
  public List<List<Object>> raw(Feed f) throws SQLException {
    return rows("SELECT " + list(f.columns()) + " FROM " + valid(f), f.columns().stream().map(Column::type).toList());
  }

  /** How many landed lines of the feed are not valid. */
  public long invalid(Feed f) throws SQLException {
    String table = valid(f);
    return one("SELECT (SELECT count(*) FROM lines WHERE feed = '" + f.name() + "') - (SELECT count(*) FROM "
        + table + ")");
  }

  /** Per key, its first occurrence: by arrival, then file, then line. */
  public List<List<Object>> deduplicated(Feed f) throws SQLException {
    return rows("SELECT " + list(f.columns()) + " FROM " + valid(f) + " QUALIFY row_number() OVER (PARTITION BY "
        + f.key().stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(", "))
        + " ORDER BY arrival, file, pos) = 1", f.columns().stream().map(Column::type).toList());
  }

  /** A measure: count of rows, or sum, min or max of a column. */
  public record Measure(String function, Column of, Type type) {}

  /**
   * The final windows of an aggregate: group values, the window's start, the measures; the windows that end at or
   * before the newest valid event time less {@code watermark}, of groups without a null.
   */
  public List<List<Object>> windows(Feed f, List<Column> groupBy, Duration window, Duration watermark,
                                    List<Measure> measures) throws SQLException {
    String table = valid(f);
    String time = "\"" + f.time() + "\"";
    String bucket = "time_bucket(INTERVAL " + window.toSeconds() + " SECOND, CAST(" + time
        + " AS TIMESTAMPTZ), TIMESTAMPTZ '1970-01-01 00:00:00+00')";
    List<String> select = new ArrayList<>();
    List<String> groups = new ArrayList<>();
    groupBy.forEach(g -> groups.add("\"" + g.name() + "\""));
    select.addAll(groups);
    select.add("CAST(__w AS TIMESTAMP)");
    for (Measure m : measures) {
      String v = m.function().equals("count") ? "count(*)" : m.function() + "(\"" + m.of().name() + "\")";
      select.add("CAST(" + v + " AS " + m.type().duckDb() + ")");
    }
    String notNull = groupBy.stream().map(g -> "\"" + g.name() + "\" IS NOT NULL").collect(Collectors.joining(" AND "));
    List<Type> types = new ArrayList<>(groupBy.stream().map(Column::type).toList());
    types.add(Type.TIMESTAMP);
    measures.forEach(m -> types.add(m.type()));
    return rows("SELECT " + String.join(", ", select) + " FROM (SELECT *, " + bucket + " AS __w FROM " + table
        + ") WHERE " + notNull + " GROUP BY " + String.join(", ", groups) + ", __w HAVING __w + INTERVAL "
        + window.toSeconds() + " SECOND <= (SELECT CAST(max(" + time + ") AS TIMESTAMPTZ) FROM " + table
        + ") - INTERVAL " + watermark.toSeconds() + " SECOND", types);
  }

  /**
   * The SCD2 history of a dimension feed: key, attributes, valid from, valid to, current; {@code deleteColumn} and
   * {@code deleteValue} (SQL) mark a delete (null: none).
   */
  public List<List<Object>> history(Feed f, List<Column> attributes, String deleteColumn, String deleteValue)
      throws SQLException {
    String table = valid(f);
    String key = f.key().stream().map(k -> "\"" + k + "\"").collect(Collectors.joining(", "));
    String time = "\"" + f.time() + "\"";
    String deleted = deleteColumn == null ? "false" : "coalesce(\"" + deleteColumn + "\" = " + deleteValue + ", false)";
    StringBuilder attrs = new StringBuilder();
    StringBuilder winner = new StringBuilder("d DESC");
    StringBuilder same = new StringBuilder("d IS NOT DISTINCT FROM lag(d) OVER w");
    for (Column a : attributes) {
      String n = "\"" + a.name() + "\"";
      attrs.append(", CASE WHEN d THEN NULL ELSE ").append(n).append(" END AS ").append(n);
      winner.append(", ").append(n).append(" DESC NULLS LAST");
      same.append(" AND ").append(n).append(" IS NOT DISTINCT FROM lag(").append(n).append(") OVER w");
    }
    String changes = "SELECT " + key + ", " + time + ", d" + attrs + " FROM (SELECT *, " + deleted + " AS d FROM "
        + table + ")";
    String settled = "SELECT * FROM (" + changes + ") QUALIFY row_number() OVER (PARTITION BY " + key + ", " + time
        + " ORDER BY " + winner + ") = 1";
    String kept = "SELECT * FROM (SELECT *, " + same + " AS repeat FROM (" + settled + ") WINDOW w AS (PARTITION BY "
        + key + " ORDER BY " + time + ")) WHERE NOT coalesce(repeat, false)";
    String versions = "SELECT *, lead(" + time + ") OVER (PARTITION BY " + key + " ORDER BY " + time + ") AS until "
        + "FROM (" + kept + ")";
    List<Type> types = new ArrayList<>();
    List<String> select = new ArrayList<>();
    for (String k : f.key()) {
      select.add("\"" + k + "\"");
      types.add(f.columns().stream().filter(c -> c.name().equals(k)).findFirst().orElseThrow().type());
    }
    for (Column a : attributes) {
      select.add("\"" + a.name() + "\"");
      types.add(a.type());
    }
    select.add(time);
    select.add("until");
    select.add("until IS NULL");
    types.add(Type.TIMESTAMP);
    types.add(Type.TIMESTAMP);
    types.add(Type.BOOLEAN);
    return rows("SELECT " + String.join(", ", select) + " FROM (" + versions + ") WHERE NOT d", types);
  }

  private static String list(List<Column> columns) {
    return columns.stream().map(c -> "\"" + c.name() + "\"").collect(Collectors.joining(", "));
  }

  private long one(String sql) throws SQLException {
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The rows of a query, each value in Java's type of {@code types}' (timestamps read as UTC instants). */
  private List<List<Object>> rows(String sql, List<Type> types) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
          row.add(read(rs, i + 1, types.get(i)));
        }
        out.add(row);
      }
    }
    return out;
  }

  private static Object read(ResultSet rs, int i, Type t) throws SQLException {
    Object v = rs.getObject(i);
    if (v == null) {
      return null;
    }
    return switch (t.kind()) {
      case INT, BIGINT -> v instanceof BigInteger b ? b.longValue() : ((Number) v).longValue();
      case DOUBLE -> ((Number) v).doubleValue();
      case DECIMAL -> ((BigDecimal) v).setScale(t.scale());
      case STRING -> v.toString();
      case BOOLEAN -> (Boolean) v;
      case DATE -> LocalDate.parse(rs.getString(i));
      case TIMESTAMP -> Instant.parse(rs.getString(i).replace(' ', 'T') + (rs.getString(i).contains("+") ? "" : "Z"));
      default -> throw new IllegalArgumentException(t.sql());
    };
  }

  @Override
  public void close() throws SQLException {
    db.close();
  }
}
