package io.tidemark.evolve;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.DuckDbRows;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Scd2Checks;
import io.tidemark.core.Schema;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.core.Rescued;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.storage.Storage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The audit of a promotion before it is merged, in DuckDB over the Parquet files of the raw archive and the
 * deduplicated records as they were (the staging branch's snapshots the branch started from) and as the backfill left them: the rows
 * backfilled are the rows that carried the key (those whose value did not convert keep it in the rescued data), each
 * value moved from the rescued data to the column and nothing else changed, and each record holds the value of
 * the archived rows it came from. DuckDB reads the JSON and converts the values itself: an engine other than the one
 * that wrote.
 */
final class BackfillAudit {
  /** The checks, and the rows that hold a value in the new column. */
  record Outcome(List<AuditCheck> checks, long rawRows, long recordRows) {}

  private final Storage storage;
  private final Path workDir;

  BackfillAudit(Storage storage, Path workDir) {
    this.storage = storage;
    this.workDir = workDir;
  }

  Outcome audit(Table raw, long rawBefore, Table records, Long recordsBefore, String key, Type type) {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      List<AuditCheck> checks = new ArrayList<>();
      long backfilled = raw(st, raw, rawBefore, key, type, checks);
      boolean widening = has(st, "rb", key);
      load(st, "eb", records, recordsBefore);
      load(st, "ea", records, records.currentSnapshot() == null ? null : records.currentSnapshot().snapshotId());
      ensureColumn(st, "ea", key, type);
      String k = "\"" + key + "\"";
      List<String> recordTyped = others(records, key, null);
      String et = String.join(", ", recordTyped);
      Diff others = differ(st, "SELECT " + et + " FROM eb", "SELECT " + et + " FROM ea");
      checks.add(AuditCheck.of("records: other columns unchanged", records.name(), others.count(), others.detail(
          "the records, apart from " + key + ", are the same before and after")));
      String same = recordTyped.stream().map(c -> "r." + c + " IS NOT DISTINCT FROM e." + c)
          .collect(Collectors.joining(" AND "));
      long wrong = one(st, "SELECT count(*) FROM ea e WHERE e." + k + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ra r "
          + "WHERE " + same + " AND r." + k + " = e." + k + ")");
      long missing = one(st, "SELECT count(*) FROM ea e WHERE e." + k + " IS NULL AND EXISTS (SELECT 1 FROM ra r WHERE "
          + same + " AND r." + k + " IS NOT NULL)");
      long recordRows = one(st, "SELECT count(*) FROM ea WHERE " + k + " IS NOT NULL")
          - (widening ? one(st, "SELECT count(*) FROM eb WHERE " + k + " IS NOT NULL") : 0);
      checks.add(AuditCheck.of("records: the value of the archived rows they came from", records.name(),
          wrong + missing, wrong + missing > 0 ? wrong + " record(s) with a value no archived row has, " + missing
              + " left without one, of " + recordRows + " backfilled" : recordRows + " record(s) backfilled"));
      return new Outcome(checks, backfilled, recordRows);
    } catch (SQLException e) {
      throw new EvolveException("evolve promote: the DuckDB audit failed: " + e.getMessage().lines().findFirst()
          .orElse(""));
    }
  }

  /** What a dimension promotion's audit found: its checks, rows backfilled, and the dimension's versions. */
  record DimensionOutcome(List<AuditCheck> checks, long rawRows, long logRows, long versionsBefore,
                        long versionsAfter) {}

  /**
   * The audit of a dimension field's promotion: the raw archive's checks, then the change log and the dimension read
   * with Iceberg's own reader (deletes applied: the dimension is merge-on-read) into DuckDB. Each logged change holds
   * the value of the archived rows it came from (DuckDB picks the greatest, as the history does), nothing else in the
   * log changed, and the dimension equals the history DuckDB rebuilds from the log by the core's rules in its own SQL,
   * which the SCD2 invariants hold of too ({@link Scd2Checks}).
   */
  DimensionOutcome auditDimension(Table raw, long rawBefore, Table log, Long logBefore, Table dimension,
                                Long dimensionBefore, String key, Type type, DimensionSchema before,
                                DimensionSchema after) {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      List<AuditCheck> checks = new ArrayList<>();
      long rawRows = raw(st, raw, rawBefore, key, type, checks);
      boolean widening = before.feed().declares(key);
      DuckDbRows.create(db, "lb", before.logged(), rows(log, logBefore, before.logged()));
      DuckDbRows.create(db, "la", after.logged(), rows(log, snapshot(log), after.logged()));
      Schema versionBefore = before.version();
      Schema versionAfter = after.version();
      DuckDbRows.create(db, "db0", versionBefore, rows(dimension, dimensionBefore, versionBefore));
      DuckDbRows.create(db, "da", versionAfter, rows(dimension, snapshot(dimension), versionAfter));
      String k = "\"" + key + "\"";
      String marker = before.delete() == null ? null : before.delete().column().name();
      List<String> logOthers = before.logged().names().stream().filter(c -> !c.equals(key)).map(c -> "\"" + c
          + "\"").toList();
      Diff logDiff = differ(st, "SELECT " + String.join(", ", logOthers) + " FROM lb", "SELECT "
          + String.join(", ", logOthers) + " FROM la");
      checks.add(AuditCheck.of("log: other columns unchanged", log.name(), logDiff.count(), logDiff.detail(
          "the logged changes, apart from " + key + ", are the same before and after")));

      String same = before.logged().columns().stream().filter(c -> !c.name().equals(key) && !c.name().equals(marker))
          .map(c -> c.type().equals(Type.TIMESTAMP) ? "CAST(r." + c + " AS TIMESTAMP) = l." + c
              : "r.\"" + c + "\" IS NOT DISTINCT FROM l.\"" + c + "\"")
          .reduce((a, b) -> a + " AND " + b).orElseThrow();
      String notDeletes = before.delete() == null ? "" : " AND NOT " + before.delete().isDeleteSql("r.") + " AND NOT "
          + before.delete().isDeleteSql("l.");
      long wrong = one(st, "SELECT count(*) FROM la l WHERE l." + k + " IS DISTINCT FROM (SELECT max(r." + k
          + ") FROM ra r WHERE " + same + notDeletes + ")");
      long logRows = one(st, "SELECT count(*) FROM la WHERE " + k + " IS NOT NULL")
          - (widening ? one(st, "SELECT count(*) FROM lb WHERE " + k + " IS NOT NULL") : 0);
      checks.add(AuditCheck.of("log: each change holds the value of the archived rows it came from", log.name(),
          wrong, wrong > 0 ? wrong + " of " + logRows + " logged change(s) differ from the greatest value of their "
              + "archived rows" : logRows + " logged change(s) backfilled"));

      st.execute("CREATE TABLE lc AS SELECT " + after.key().stream().map(c -> "\"" + c.name() + "\"")
          .collect(Collectors.joining(", ")) + ", \"" + after.changeTime().name() + "\", " + isDelete(after, "")
          + " AS " + Scd2Checks.DELETED + " FROM la");
      st.execute("CREATE TABLE oracle AS " + rebuild("la", after));
      String versions = versionAfter.names().stream().map(c -> "\"" + c + "\"").reduce((a, b) -> a + ", " + b)
          .orElseThrow();
      Diff rebuiltDiff = differ(st, "SELECT " + versions + " FROM da", "SELECT " + versions + " FROM oracle");
      long rebuilt = rebuiltDiff.count();
      long versionsBefore = one(st, "SELECT count(*) FROM db0");
      long versionsAfter = one(st, "SELECT count(*) FROM da");
      checks.add(AuditCheck.of("dimension: the history DuckDB rebuilds from the log", dimension.name(), rebuilt,
          rebuilt == 0 ? versionsBefore + " version(s) before, " + versionsAfter + " after, each where DuckDB's "
              + "rebuild with " + key + " has it" : rebuilt + " version(s) differ from DuckDB's rebuild: "
              + String.join("; ", rebuiltDiff.first()).replace("before only", "held only").replace("after only",
                  "rebuilt only")));
      long broken = 0;
      String first = null;
      for (Scd2Checks.Rule rule : Scd2Checks.rules("da", "lc", "oracle", after)) {
        List<String> found = DuckDbRows.firstColumn(db, rule.sql());
        broken += found.size();
        if (first == null && !found.isEmpty()) {
          first = rule.name() + ": " + found.get(0);
        }
      }
      checks.add(AuditCheck.of("dimension: SCD2 invariants", dimension.name(), broken, broken == 0
          ? "one open version per key, no gap but after a delete, no overlap, no alike neighbours" : first));
      return new DimensionOutcome(checks, rawRows, logRows, versionsBefore, versionsAfter);
    } catch (SQLException e) {
      throw new EvolveException("evolve promote: the DuckDB audit failed: " + e.getMessage().lines().findFirst()
          .orElse(""));
    }
  }

  /** Whether a change is a delete, in DuckDB's SQL ({@code prefix} before the marker column). */
  private static String isDelete(DimensionSchema d, String prefix) {
    return d.delete() == null ? "false" : d.delete().isDeleteSql(prefix);
  }

  /**
   * The SCD2 history of the normalized changes in table {@code log}, in DuckDB's SQL: of changes at one instant the
   * delete, else the greatest attributes in order; a repeat of the state before dropped; a version from each kept
   * change that is not a delete to the next kept one.
   */
  static String rebuild(String log, DimensionSchema d) {
    List<Column> attributes = d.attributes();
    String keys = d.key().stream().map(c -> "\"" + c.name() + "\"").collect(Collectors.joining(", "));
    String ts = "\"" + d.changeTime().name() + "\"";
    String deleted = "tidemark_deleted";
    log = "(SELECT *, " + isDelete(d, "") + " AS " + deleted + " FROM " + log + ")";
    StringBuilder winnerFirst = new StringBuilder(deleted + " DESC");
    StringBuilder sameAsBefore = new StringBuilder(deleted + " IS NOT DISTINCT FROM lag(" + deleted + ") OVER w");
    StringBuilder attrs = new StringBuilder();
    for (Column a : attributes) {
      String n = "\"" + a.name() + "\"";
      winnerFirst.append(", ").append(n).append(" DESC NULLS LAST");
      sameAsBefore.append(" AND ").append(n).append(" IS NOT DISTINCT FROM lag(").append(n).append(") OVER w");
      attrs.append(", ").append(n);
    }
    String settled = "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY " + keys + ", " + ts + " ORDER BY "
        + winnerFirst + ") AS tidemark_rank FROM " + log + ") WHERE tidemark_rank = 1";
    String kept = "SELECT * FROM (SELECT *, " + sameAsBefore + " AS tidemark_repeat FROM (" + settled + ") WINDOW w AS "
        + "(PARTITION BY " + keys + " ORDER BY " + ts + ")) WHERE NOT coalesce(tidemark_repeat, false)";
    return "SELECT " + keys + attrs + ", " + ts + " AS " + DimensionSchema.VALID_FROM.name() + ", tidemark_to AS "
        + DimensionSchema.VALID_TO.name() + ", tidemark_to IS NULL AS " + DimensionSchema.IS_CURRENT.name()
        + " FROM (SELECT *, "
        + "lead(" + ts + ") OVER (PARTITION BY " + keys + " ORDER BY " + ts + ") AS tidemark_to FROM (" + kept
        + ")) WHERE NOT " + deleted;
  }

  /** A table's rows at a snapshot (none for none) as Iceberg's reader gives them, deletes applied. */
  private static List<List<Object>> rows(Table table, Long snapshot, Schema columns) {
    if (snapshot == null) {
      return List.of();
    }
    List<List<Object>> out = new ArrayList<>();
    for (Record r : DriverReads.read(table, snapshot, Expressions.alwaysTrue(), columns.names(), false,
        Long.MAX_VALUE)) {
      List<Object> row = new ArrayList<>();
      columns.names().forEach(c -> row.add(IcebergFields.value(r.getField(c))));
      out.add(row);
    }
    return out;
  }

  private static Long snapshot(Table table) {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }

  /**
   * The raw archive's checks (tables {@code rb} and {@code ra}: before and after, left loaded): the rows backfilled
   * are those that carried the key, each value moved from the rescued data, nothing else changed. Returns the rows
   * backfilled.
   */
  long raw(Statement st, Table raw, long rawBefore, String key, Type type, List<AuditCheck> checks)
      throws SQLException {
    load(st, "rb", raw, rawBefore);
    load(st, "ra", raw, raw.currentSnapshot().snapshotId());
    // a widening: the column was there before, with the values that converted to its narrower type
    boolean widening = has(st, "rb", key);
    ensureColumn(st, "ra", key, type);
    String k = "\"" + key + "\"";
    String path = "'$.\"" + key + "\"'";
    String rescued = Rescued.DATA.name();
    List<String> rawTyped = others(raw, key, rescued);
    String rt = String.join(", ", rawTyped);
    String table = raw.name();

    Diff rawOthers = differ(st, "SELECT " + rt + " FROM rb", "SELECT " + rt + " FROM ra");
    checks.add(AuditCheck.of("raw: other columns unchanged", table, rawOthers.count(), rawOthers.detail(
        "the archive's rows, apart from " + key + " and " + rescued + ", are the same before and after")));

    long carried = one(st, "SELECT count(*) FROM rb WHERE coalesce(json_type(" + rescued + ", " + path
        + "), 'NULL') <> 'NULL'");
    long backfilled = one(st, "SELECT count(*) FROM ra WHERE " + k + " IS NOT NULL")
        - (widening ? one(st, "SELECT count(*) FROM rb WHERE " + k + " IS NOT NULL") : 0);
    long stayed = one(st, "SELECT count(*) FROM ra WHERE coalesce(json_type(" + rescued + ", " + path
        + "), 'NULL') <> 'NULL'");
    long both = one(st, "SELECT count(*) FROM ra WHERE " + k + " IS NOT NULL AND json_type(" + rescued + ", "
        + path + ") IS NOT NULL");
    checks.add(AuditCheck.of("raw: rows backfilled = rows that carried the key", table,
        (backfilled + stayed == carried ? 0 : 1) + both, backfilled + " row(s) backfilled, " + stayed
            + " kept in the rescued data (not " + type.phrase() + "), of " + carried + " that carried " + key
            + (both > 0 ? "; " + both + " row(s) hold it twice" : "")));

    // each value: DuckDB's conversion of the rescued JSON, where it is of a kind Spark's reader converts
    String base = "json_merge_patch(json_merge_patch('{}', coalesce(" + rescued + ", '{}')), '{\"" + key
        + "\":null}')";
    String raw0 = "NULLIF(CAST(json_extract(" + rescued + ", " + path + ") AS VARCHAR), 'null')";
    String cast = "TRY_CAST(json_extract_string(" + rescued + ", " + path + ") AS " + duck(type) + ")";
    String convertible = "json_type(" + rescued + ", " + path + ") IN (" + kinds(type) + ")";
    String before = "SELECT " + rt + ", " + base + " AS rest, " + (widening ? "coalesce(CAST(" + k + " AS "
        + duck(type) + "), " : "(") + "CASE WHEN " + convertible + " THEN " + cast
        + " END) AS v, CASE WHEN " + convertible + " AND " + cast + " IS NOT NULL THEN NULL ELSE " + raw0
        + " END AS kept FROM rb";
    String after = "SELECT " + rt + ", " + base + " AS rest, " + k + " AS v, " + raw0 + " AS kept FROM ra";
    Diff moved = differ(st, before, after);
    checks.add(AuditCheck.of("raw: each value moved from the rescued data to the column", table, moved.count(),
        moved.detail("DuckDB's reading of the rescued data before equals the column and the rescued data after")
            .replace("before only", "as DuckDB reads the rescued data").replace("after only", "as moved")));

    return backfilled;
  }

  /** The table's columns but the promoted one (and the rescued data). */
  private static List<String> others(Table table, String key, String rescued) {
    return table.schema().columns().stream().map(Types.NestedField::name)
        .filter(n -> !n.equals(key) && !n.equals(rescued)).map(n -> "\"" + n + "\"").toList();
  }

  /** Rows in one query and not the other, counted as multisets both ways. */
  /**
   * The rows of query {@code a} that {@code b} lacks and the other way round: how many, and the first few of each
   * side as a failed check names them ({@code before only: (7, c1, 2.0)}).
   */
  private static Diff differ(Statement st, String a, String b) throws SQLException {
    long n = one(st, "SELECT count(*) FROM ((" + a + " EXCEPT ALL " + b + ") UNION ALL (" + b + " EXCEPT ALL " + a
        + "))");
    List<String> first = new ArrayList<>();
    if (n > 0) {
      first.addAll(rows(st, "before only: ", "SELECT * FROM (" + a + " EXCEPT ALL " + b + ") LIMIT 3"));
      first.addAll(rows(st, "after only: ", "SELECT * FROM (" + b + " EXCEPT ALL " + a + ") LIMIT 3"));
    }
    return new Diff(n, first);
  }

  /** How many rows two queries disagree on, and the first few. */
  private record Diff(long count, List<String> first) {
    /** The check's detail: {@code passing} when they agree, else how many rows differ and which. */
    String detail(String passing) {
      return count == 0 ? passing : count + " row(s) differ: " + String.join("; ", first);
    }
  }

  private static List<String> rows(Statement st, String label, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          values.add(String.valueOf(rs.getObject(i)));
        }
        out.add(label + "(" + String.join(", ", values) + ")");
      }
    }
    return out;
  }

  private static long one(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The JSON kinds (DuckDB's names) Spark's JSON reader converts to the type. */
  private static String kinds(Type type) {
    return switch (type.kind()) {
      case INT, BIGINT -> "'BIGINT', 'UBIGINT'";
      case DOUBLE, DECIMAL -> "'BIGINT', 'UBIGINT', 'DOUBLE'";
      case BOOLEAN -> "'BOOLEAN'";
      case TIMESTAMP, DATE -> "'VARCHAR'";
      default -> "'VARCHAR', 'BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN', 'OBJECT', 'ARRAY'";
    };
  }

  /** The type in DuckDB, as it reads Iceberg's Parquet (timestamps with a time zone). */
  private static String duck(Type type) {
    return type.equals(Type.TIMESTAMP) ? "TIMESTAMPTZ" : type.duckDb();
  }

  private static void ensureColumn(Statement st, String table, String key, Type type) throws SQLException {
    if (!has(st, table, key)) {
      // no data file written since the column came: every row reads it as null
      st.execute("ALTER TABLE " + table + " ADD COLUMN \"" + key + "\" " + duck(type));
    }
  }

  private static boolean has(Statement st, String table, String column) throws SQLException {
    return one(st, "SELECT count(*) FROM information_schema.columns WHERE table_name = '" + table
        + "' AND column_name = '" + column + "'") > 0;
  }

  /** The table's rows at a snapshot as DuckDB table {@code name}; Iceberg's columns by name across old files. */
  private void load(Statement st, String name, Table table, Long snapshot) throws SQLException {
    List<Path> files = snapshot == null ? List.of() : download(table, snapshot);
    if (files.isEmpty()) {
      st.execute("CREATE TABLE " + name + " AS SELECT * FROM (SELECT " + table.schema().columns().stream()
          .map(f -> "CAST(NULL AS " + duckType(f.type()) + ") AS \"" + f.name() + "\"")
          .collect(Collectors.joining(", ")) + ") WHERE false");
      return;
    }
    st.execute("CREATE TABLE " + name + " AS SELECT * FROM read_parquet([" + files.stream()
        .map(f -> "'" + f.toAbsolutePath() + "'").collect(Collectors.joining(", ")) + "], union_by_name = true)");
  }

  private static String duckType(org.apache.iceberg.types.Type t) {
    return switch (t.typeId()) {
      case INTEGER -> "INTEGER";
      case LONG -> "BIGINT";
      case DOUBLE -> "DOUBLE";
      case BOOLEAN -> "BOOLEAN";
      case TIMESTAMP -> "TIMESTAMPTZ";
      case DATE -> "DATE";
      case DECIMAL -> "DECIMAL(" + ((Types.DecimalType) t).precision() + "," + ((Types.DecimalType) t).scale() + ")";
      default -> "VARCHAR";
    };
  }

  /** The snapshot's data files, copied to the work dir (each once); a delete file would be ignored, so refused. */
  private List<Path> download(Table table, long snapshot) {
    List<Path> out = new ArrayList<>();
    try {
      Files.createDirectories(workDir);
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot).planFiles()) {
        for (FileScanTask task : tasks) {
          if (!task.deletes().isEmpty()) {
            throw new EvolveException("evolve promote: " + table.name() + " has delete files; run tidemark maintain "
                + "compact first");
          }
          URI uri = URI.create(task.file().location());
          String key = uri.getPath().replaceFirst("^/", "");
          Path local = workDir.resolve(key.replace('/', '_'));
          if (!Files.exists(local)) {
            storage.download(uri.getHost(), key, local);
          }
          out.add(local);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
