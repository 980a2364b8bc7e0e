package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.lakehouse.IcebergTables;
import io.tidemark.lakehouse.Storage;
import io.tidemark.lakehouse.TableCatalog;
import io.tidemark.lakehouse.TableDefinition;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The audit of a restatement branch before it is published: invariants of what was corrected (counts at least
 * 1, one row per window, one row per event_id, SCD2 invariants, no count going down), and an independent
 * recomputation in DuckDB of the corrected windows and first occurrences from the raw archive's own Parquet
 * files, copied from S3 with the MinIO client (DuckDB reads local files only here).
 */
public final class RestatementAudit {
  /** How far apart in event time repeats of one event_id may be (the restatement's rule, shared). */
  public static final Duration DUPLICATE_SPREAD = Duration.ofDays(1);

  private final SparkSession spark;
  private final Storage storage;
  private final Tables tables;
  private final String branch;
  private final Path workDir;

  public RestatementAudit(SparkSession spark, Storage storage, Tables tables, String branch, Path workDir) {
    this.spark = spark;
    this.storage = storage;
    this.tables = tables;
    this.branch = branch;
    this.workDir = workDir;
  }

  /**
   * Audits the corrections ({@code counts}: company_id, w_start, old_n, new_n; {@code events}: event_id, ...;
   * {@code companies}: the company ids whose history was rebuilt) against the branch and the raw archive as of
   * {@code rawSnapshot}.
   */
  public List<AuditCheck> audit(Dataset<Row> counts, Dataset<Row> events, List<String> companies, long rawSnapshot,
                                Duration window) throws IOException, SQLException {
    List<AuditCheck> checks = new ArrayList<>();
    String countsTable = tables.eventCounts().toString();
    String eventsTable = tables.events().toString();
    counts.createOrReplaceTempView("tidemark_audit_counts");
    events.createOrReplaceTempView("tidemark_audit_events");
    String onBranch = "SELECT t.* FROM " + tables.eventCounts().sqlAt(branch) + " t JOIN tidemark_audit_counts c "
        + "ON t.company_id = c.company_id AND t.w_start = c.w_start";
    checks.add(AuditCheck.of("counts: n >= 1", countsTable,
        spark.sql(onBranch + " WHERE t.n < 1").count(), "every corrected window has n >= 1"));
    checks.add(AuditCheck.of("counts: one row per (company, window)", countsTable,
        spark.sql("SELECT company_id, w_start FROM (" + onBranch + ") GROUP BY company_id, w_start HAVING count(*) <> 1")
            .count(), counts.count() + " corrected window(s) hold one row each"));
    checks.add(AuditCheck.of("counts: no window loses events", countsTable,
        spark.sql("SELECT * FROM tidemark_audit_counts WHERE old_n > new_n").count(),
        "a count going down means the raw archive is behind the counts stream: run `tidemark stream raw` first"));
    String eventsOnBranch = "SELECT t.* FROM " + tables.events().sqlAt(branch) + " t JOIN tidemark_audit_events e "
        + "ON t.event_id = e.event_id";
    checks.add(AuditCheck.of("events: one row per event_id", eventsTable,
        spark.sql("SELECT event_id FROM (" + eventsOnBranch + ") GROUP BY event_id HAVING count(*) <> 1").count(),
        events.count() + " corrected event_id(s) hold one row each"));
    if (!companies.isEmpty()) {
      Dataset<Row> keys = spark.createDataset(companies, org.apache.spark.sql.Encoders.STRING()).toDF("company_id");
      List<Scd2Invariants.Violation> v = Scd2Invariants.check(
          spark.table(tables.companies().sqlAt(branch)).join(keys, "company_id"),
          Optional.of(spark.table(tables.companyChanges().sqlAt(branch)).join(keys, "company_id")));
      checks.add(new AuditCheck("companies: SCD2 invariants", tables.companies().toString(), v.isEmpty(),
          v.isEmpty() ? companies.size() + " rebuilt companies: one open version, no gap or overlap, equal to the "
              + "rebuild from the change log" : v.toString()));
    }
    checks.addAll(duckdb(counts, events, rawSnapshot, window));
    return checks;
  }

  /** DuckDB recounts the corrected windows and finds the first occurrences from the raw Parquet files. */
  private List<AuditCheck> duckdb(Dataset<Row> counts, Dataset<Row> events, long rawSnapshot, Duration window)
      throws IOException, SQLException {
    List<Row> windows = counts.select("company_id", "w_start").collectAsList();
    List<Row> ids = events.select("event_id").collectAsList();
    if (windows.isEmpty() && ids.isEmpty()) {
      return List.of();
    }
    Instant lo = Instant.MAX;
    Instant hi = Instant.MIN;
    for (Row r : windows) {
      lo = min(lo, r.getTimestamp(1).toInstant());
      hi = max(hi, r.getTimestamp(1).toInstant().plus(window));
    }
    for (Row r : events.select("event_ts").collectAsList()) {
      lo = min(lo, r.getTimestamp(0).toInstant().minus(DUPLICATE_SPREAD));
      hi = max(hi, r.getTimestamp(0).toInstant().plus(DUPLICATE_SPREAD));
    }
    List<Path> files = download(tables.rawEvents(), rawSnapshot, lo, hi);
    List<AuditCheck> checks = new ArrayList<>();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      StringBuilder list = new StringBuilder();
      for (Path f : files) {
        list.append(list.isEmpty() ? "" : ", ").append('\'').append(f.toAbsolutePath()).append('\'');
      }
      st.execute(files.isEmpty()
          ? "CREATE TABLE raw (" + duckDbColumns(TableCatalog.rawEvents(tables.rawEvents())) + ")"
          : "CREATE TABLE raw AS SELECT * FROM read_parquet([" + list + "])");
      if (!windows.isEmpty()) {
        Map<String, Long> expected = new TreeMap<>();
        try (ResultSet rs = st.executeQuery("SELECT company_id, strftime(time_bucket(INTERVAL " + window.toSeconds()
            + " SECOND, event_ts), '%Y-%m-%d %H:%M:%S'), count(*) FROM raw GROUP BY ALL")) {
          while (rs.next()) {
            expected.put(rs.getString(1) + "|" + rs.getString(2), rs.getLong(3));
          }
        }
        Map<String, Long> onBranch = new HashMap<>();
        for (Row r : spark.sql("SELECT t.company_id, date_format(t.w_start, 'yyyy-MM-dd HH:mm:ss'), t.n FROM "
            + tables.eventCounts().sqlAt(branch) + " t JOIN tidemark_audit_counts c ON t.company_id = c.company_id "
            + "AND t.w_start = c.w_start").collectAsList()) {
          onBranch.put(r.getString(0) + "|" + r.getString(1), r.getLong(2));
        }
        List<String> wrong = new ArrayList<>();
        onBranch.forEach((k, n) -> {
          if (!n.equals(expected.get(k))) {
            wrong.add(k + " has n=" + n + ", DuckDB counts " + expected.get(k));
          }
        });
        checks.add(AuditCheck.of("counts: DuckDB recount from the raw archive", tables.eventCounts().toString(),
            wrong.size() + (onBranch.size() == windows.size() ? 0 : 1),
            wrong.isEmpty() ? onBranch.size() + " corrected window(s) equal DuckDB's count over " + files.size()
                + " raw Parquet file(s)" : String.join("; ", wrong.subList(0, Math.min(5, wrong.size())))));
      }
      if (!ids.isEmpty()) {
        Map<Integer, String> first = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT event_id, company_id || '|' || CAST(amount AS VARCHAR) || '|' || "
            + "strftime(event_ts, '%Y-%m-%d %H:%M:%S') FROM raw QUALIFY row_number() OVER (PARTITION BY event_id "
            + "ORDER BY batch_id, source_file, ingest_ts, company_id, amount) = 1")) {
          while (rs.next()) {
            first.put(rs.getInt(1), rs.getString(2));
          }
        }
        List<String> wrong = new ArrayList<>();
        for (Row r : spark.sql("SELECT t.event_id, concat_ws('|', t.company_id, CAST(t.amount AS STRING), "
            + "date_format(t.event_ts, 'yyyy-MM-dd HH:mm:ss')) FROM " + tables.events().sqlAt(branch) + " t JOIN "
            + "tidemark_audit_events e ON t.event_id = e.event_id").collectAsList()) {
          if (!r.getString(1).equals(first.get(r.getInt(0)))) {
            wrong.add("event " + r.getInt(0) + " is " + r.getString(1) + ", first seen as " + first.get(r.getInt(0)));
          }
        }
        checks.add(AuditCheck.of("events: DuckDB first occurrence from the raw archive", tables.events().toString(),
            wrong.size(), wrong.isEmpty() ? ids.size() + " corrected event_id(s) hold their first occurrence"
                : String.join("; ", wrong.subList(0, Math.min(5, wrong.size())))));
      }
    }
    return checks;
  }

  /** Copies the raw table's Parquet files that may hold rows with event time in [lo, hi) to the work dir. */
  private List<Path> download(TableName raw, long snapshot, Instant lo, Instant hi) throws IOException {
    Table t = IcebergTables.load(spark, raw);
    List<Path> out = new ArrayList<>();
    Files.createDirectories(workDir);
    try (CloseableIterable<FileScanTask> tasks = t.newScan().useSnapshot(snapshot)
        .filter(Expressions.and(Expressions.greaterThanOrEqual("event_ts", lo.toEpochMilli() * 1000),
            Expressions.lessThan("event_ts", hi.toEpochMilli() * 1000)))
        .planFiles()) {
      for (FileScanTask task : tasks) {
        URI uri = URI.create(task.file().path().toString());
        String key = uri.getPath().replaceFirst("^/", "");
        Path local = workDir.resolve(key.replace('/', '_'));
        if (!Files.exists(local)) {
          storage.download(uri.getHost(), key, local);
        }
        out.add(local);
      }
    }
    return out;
  }

  /** A table's columns in DuckDB's types; timestamps with time zone, as DuckDB reads Iceberg's from Parquet. */
  static String duckDbColumns(TableDefinition table) {
    List<String> cols = new ArrayList<>();
    table.columns().forEach((name, type) -> cols.add(name + " " + switch (type) {
      case "INT" -> "INTEGER";
      case "STRING" -> "VARCHAR";
      case "TIMESTAMP" -> "TIMESTAMPTZ";
      default -> type;
    }));
    return String.join(", ", cols);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
