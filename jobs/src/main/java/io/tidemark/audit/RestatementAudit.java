package io.tidemark.audit;

import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.CorrectionLog;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.Dimension;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.core.Event;
import io.tidemark.core.Events;
import io.tidemark.core.Feed;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.Times;
import io.tidemark.core.WindowCounts;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The audit of a restatement branch before it is published, in one pass over what was corrected: the branch's rows
 * of the corrected windows, events and companies read once on the driver; invariants of what was corrected (counts
 * at least 1, one row per window, one row per event_id, no count going down, the SCD2 invariants of the rebuilt
 * companies); and an independent recomputation in DuckDB of the corrected windows and first occurrences from the
 * raw archive's own Parquet files (only those that may hold the corrected windows' and events' rows), copied from
 * S3 with the MinIO client (DuckDB reads local files only here).
 */
public final class RestatementAudit {
  private static final Duration DUPLICATE_SPREAD = CorrectionRules.DUPLICATE_SPREAD;

  /** A window the restatement corrected: its count before ({@code oldN}, null for none) and after. */
  public record CorrectedWindow(String companyId, Instant wStart, Long oldN, long newN) {}

  /** An event id the restatement corrected, and the event time of its first occurrence. */
  public record CorrectedEvent(int eventId, Instant eventTs) {}

  /** The branch's tables as audited (each at the snapshot it was loaded at), and the raw archive's snapshot. */
  public record Subject(Table counts, Table events, Table companies, Table changeLog, Table rawEvents,
                        long rawSnapshot) {}

  private final Storage storage;
  private final Tables names;
  private final Path workDir;

  public RestatementAudit(Storage storage, Tables names, Path workDir) {
    this.storage = storage;
    this.names = names;
    this.workDir = workDir;
  }

  public List<AuditCheck> audit(Subject s, List<CorrectedWindow> windows, List<CorrectedEvent> events,
                                List<String> companies, Duration window) throws IOException, SQLException {
    String countsTable = names.eventCounts().toString();
    String eventsTable = names.events().toString();
    Map<String, List<Long>> onBranch = windowRows(s.counts(), windows);
    // the fields promoted into the events (tidemark evolve): a corrected event must hold its first occurrence's values
    List<io.tidemark.core.Column> more = FeedDeclarations.of(s.rawEvents(), Feed.EVENTS).beyond(Events.FEED);
    Map<Integer, List<Fields>> eventRows = eventRows(s.events(), events, more);
    List<AuditCheck> checks = new ArrayList<>();
    checks.add(AuditCheck.of("counts: n >= 1", countsTable, onBranch.entrySet().stream()
        .flatMap(e -> e.getValue().stream().filter(n -> n == null || n < 1).map(n -> window(e.getKey()) + " has n = "
            + n)).toList(), "every corrected window has n >= 1"));
    List<String> notOne = new ArrayList<>();
    windows.stream().map(w -> w.companyId() + "|" + CorrectionLog.seconds(w.wStart())).distinct().forEach(k -> {
      int rows = onBranch.getOrDefault(k, List.of()).size();
      if (rows != 1) {
        notOne.add(window(k) + " holds " + (rows == 0 ? "no row" : rows + " rows"));
      }
    });
    checks.add(AuditCheck.of("counts: one row per (company, window)", countsTable, notOne,
        windows.size() + " corrected window(s) hold one row each"));
    checks.add(AuditCheck.of("counts: no window loses events", countsTable, windows.stream()
            .filter(w -> w.oldN() != null && w.oldN() > w.newN())
            .map(w -> window(w.companyId() + "|" + CorrectionLog.seconds(w.wStart())) + " n " + w.oldN() + " -> "
                + w.newN() + " (the raw archive is behind the counts stream: run `tidemark stream raw` first)")
            .toList(),
        "no corrected window counts fewer events than before"));
    checks.add(AuditCheck.of("events: one row per event_id", eventsTable, eventRows.entrySet().stream()
            .filter(e -> e.getValue().size() != 1).map(e -> "event " + e.getKey() + " holds " + e.getValue().size()
                + " rows").toList(),
        events.size() + " corrected event_id(s) hold one row each"));
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement st = db.createStatement()) {
        st.execute("SET TimeZone = 'UTC'");
      }
      if (!companies.isEmpty()) {
        checks.add(scd2(db, s, companies));
      }
      checks.addAll(recount(db, s, windows, events, onBranch, eventRows, more, window));
    }
    return checks;
  }

  /** The branch's counts of the corrected windows: "company|yyyy-MM-dd HH:mm:ss" to the n of each row. */
  private static Map<String, List<Long>> windowRows(Table counts, List<CorrectedWindow> windows) {
    Map<String, List<Long>> out = new TreeMap<>();
    if (windows.isEmpty()) {
      return out;
    }
    Set<String> keys = windows.stream().map(w -> w.companyId() + "|" + CorrectionLog.seconds(w.wStart()))
        .collect(Collectors.toSet());
    Instant lo = windows.stream().map(CorrectedWindow::wStart).min(Instant::compareTo).orElseThrow();
    Instant hi = windows.stream().map(CorrectedWindow::wStart).max(Instant::compareTo).orElseThrow();
    String start = WindowCounts.W_START.name();
    Expression filter = Expressions.and(Expressions.in(WindowCounts.COMPANY_ID.name(), windows.stream()
            .map(CorrectedWindow::companyId).distinct().toArray()),
        Expressions.and(Expressions.greaterThanOrEqual(start, Times.micros(lo)),
            Expressions.lessThanOrEqual(start, Times.micros(hi))));
    for (Record r : DriverReads.read(counts, null, filter, WindowCounts.SCHEMA.names(), false, Long.MAX_VALUE)) {
      Fields f = IcebergFields.of(r);
      String key = f.string(WindowCounts.COMPANY_ID) + "|" + CorrectionLog.seconds(f.instant(WindowCounts.W_START));
      if (keys.contains(key)) {
        out.computeIfAbsent(key, k -> new ArrayList<>()).add(f.bigint(WindowCounts.N));
      }
    }
    return out;
  }

  /** The branch's rows of the corrected event ids, with the promoted fields ({@code more}). */
  private static Map<Integer, List<Fields>> eventRows(Table events, List<CorrectedEvent> corrected,
                                                      List<io.tidemark.core.Column> more) {
    Map<Integer, List<Fields>> out = new TreeMap<>();
    if (corrected.isEmpty()) {
      return out;
    }
    for (Record r : DriverReads.read(events, null, Expressions.in(Events.EVENT_ID.name(), corrected.stream()
            .map(CorrectedEvent::eventId).distinct().toArray()), Events.FEED.columns().plus(more).names(), false,
        Long.MAX_VALUE)) {
      Fields f = IcebergFields.of(r);
      out.computeIfAbsent(f.integer(Events.EVENT_ID), k -> new ArrayList<>()).add(f);
    }
    return out;
  }

  /** The SCD2 invariants of the rebuilt companies: their versions against their change log, by DuckDB. */
  private AuditCheck scd2(Connection db, Subject s, List<String> companies) throws SQLException {
    Expression theirs = Expressions.in(Dimension.COMPANY_ID.name(), companies.toArray());
    FeedSchema declared = FeedDeclarations.ofChangeLog(s.changeLog());
    List<io.tidemark.core.Column> promoted = declared.beyond(CompanyChanges.FEED);
    List<CompanyVersion> versions = DriverReads.read(s.companies(), null, theirs,
        Dimension.version(declared).names(), false, Long.MAX_VALUE).stream()
        .map(r -> CompanyVersion.of(IcebergFields.of(r), promoted)).toList();
    List<CompanyChange> changes = DriverReads.read(s.changeLog(), null, theirs,
        declared.columns().names(), false, Long.MAX_VALUE).stream()
        .map(r -> CompanyChange.of(IcebergFields.of(r), promoted)).toList();
    List<Scd2Invariants.Violation> v = Scd2Invariants.check(db, versions, Optional.of(changes), declared);
    return new AuditCheck("companies: SCD2 invariants", names.companies().toString(), v.isEmpty(),
        v.isEmpty() ? companies.size() + " rebuilt companies: one open version, no gap or overlap, equal to the "
            + "rebuild from the change log" : v.toString());
  }

  /** DuckDB recounts the corrected windows and finds the first occurrences from the raw Parquet files. */
  private List<AuditCheck> recount(Connection db, Subject s, List<CorrectedWindow> windows,
                                   List<CorrectedEvent> events, Map<String, List<Long>> onBranch,
                                   Map<Integer, List<Fields>> eventRows, List<io.tidemark.core.Column> more,
                                   Duration window)
      throws IOException, SQLException {
    if (windows.isEmpty() && events.isEmpty()) {
      return List.of();
    }
    Instant lo = Instant.MAX;
    Instant hi = Instant.MIN;
    for (CorrectedWindow w : windows) {
      lo = min(lo, w.wStart());
      hi = max(hi, w.wStart().plus(window));
    }
    for (CorrectedEvent e : events) {
      lo = min(lo, e.eventTs().minus(DUPLICATE_SPREAD));
      hi = max(hi, e.eventTs().plus(DUPLICATE_SPREAD));
    }
    List<Path> files = download(s.rawEvents(), s.rawSnapshot(), lo, hi);
    try (Statement st = db.createStatement()) {
      // by name: the files written before a promotion lack its column (null in them, as Iceberg reads them)
      st.execute(files.isEmpty()
          ? "CREATE TABLE raw (" + duckDbColumns(TableCatalog.rawEvents(names.rawEvents())) + ")"
          : "CREATE TABLE raw AS SELECT * FROM read_parquet([" + files.stream()
              .map(f -> "'" + f.toAbsolutePath() + "'").collect(Collectors.joining(", ")) + "], union_by_name = true)");
      Set<String> present = new HashSet<>();
      try (ResultSet rs = st.executeQuery("SELECT column_name FROM information_schema.columns "
          + "WHERE table_name = 'raw'")) {
        while (rs.next()) {
          present.add(rs.getString(1));
        }
      }
      for (io.tidemark.core.Column c : more) {
        if (!present.contains(c.name())) {
          st.execute("ALTER TABLE raw ADD COLUMN \"" + c.name() + "\" " + c.type().duckDb());
        }
      }
    }
    List<AuditCheck> checks = new ArrayList<>();
    if (!windows.isEmpty()) {
      Map<String, Long> expected = new HashMap<>();
      try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT " + Events.COMPANY_ID
          + ", strftime(time_bucket(INTERVAL " + window.toSeconds() + " SECOND, " + Events.EVENT_TS
          + "), '%Y-%m-%d %H:%M:%S'), count(*) FROM raw GROUP BY ALL")) {
        while (rs.next()) {
          expected.put(rs.getString(1) + "|" + rs.getString(2), rs.getLong(3));
        }
      }
      List<String> wrong = new ArrayList<>();
      onBranch.forEach((k, ns) -> ns.forEach(n -> {
        if (!Objects.equals(n, expected.get(k))) {
          wrong.add(window(k) + " has n = " + n + ", DuckDB counts " + expected.get(k));
        }
      }));
      windows.stream().map(w -> w.companyId() + "|" + CorrectionLog.seconds(w.wStart())).distinct()
          .filter(k -> !onBranch.containsKey(k))
          .forEach(k -> wrong.add(window(k) + " has no row, DuckDB counts " + expected.get(k)));
      checks.add(AuditCheck.of("counts: DuckDB recount from the raw archive", names.eventCounts().toString(),
          wrong, onBranch.size() + " corrected window(s) equal DuckDB's count over " + files.size()
              + " raw Parquet file(s)"));
    }
    if (!events.isEmpty()) {
      Map<Integer, String> first = new HashMap<>();
      try (Statement st = db.createStatement()) {
        st.execute("CREATE TABLE first_seen AS SELECT * FROM raw QUALIFY row_number() OVER (PARTITION BY "
            + Events.EVENT_ID + " ORDER BY " + Ingest.BATCH_ID + ", " + Ingest.SOURCE_FILE + ", " + Ingest.INGEST_TS
            + ", " + Events.COMPANY_ID + ", " + Events.AMOUNT + ", " + Events.EVENT_TS + ") = 1");
        try (ResultSet rs = st.executeQuery("SELECT " + Events.EVENT_ID + ", concat_ws('|', " + Events.COMPANY_ID
            + ", CAST(" + Events.AMOUNT + " AS VARCHAR), strftime(" + Events.EVENT_TS + ", '%Y-%m-%d %H:%M:%S')) "
            + "FROM first_seen")) {
          while (rs.next()) {
            first.put(rs.getInt(1), rs.getString(2));
          }
        }
      }
      List<String> wrong = new ArrayList<>();
      if (!more.isEmpty()) {
        wrong.addAll(promotedValues(db, eventRows, more));
      }
      eventRows.forEach((id, rows) -> rows.forEach(f -> {
        Event r = Event.of(f);
        String held = CorrectionLog.joined("|", r.companyId(), r.amount() == null ? null : r.amount().toString(),
            CorrectionLog.seconds(r.eventTs()));
        if (!held.equals(first.get(id))) {
          wrong.add("event " + id + " is " + held + ", first seen as " + first.get(id));
        }
      }));
      checks.add(AuditCheck.of("events: DuckDB first occurrence from the raw archive", names.events().toString(),
          wrong, events.size() + " corrected event_id(s) hold their first occurrence"
              + (more.isEmpty() ? "" : " and its " + more.stream().map(io.tidemark.core.Column::name)
                  .collect(Collectors.joining(", ")))));
    }
    return checks;
  }

  /**
   * The corrected events whose promoted fields differ from their first occurrence's (table {@code first_seen}),
   * compared in DuckDB with the branch's rows loaded as values: null-safe, each in its own type.
   */
  private static List<String> promotedValues(Connection db, Map<Integer, List<Fields>> eventRows,
                                             List<io.tidemark.core.Column> more) throws SQLException {
    io.tidemark.core.Schema held = io.tidemark.core.Schema.of(Events.EVENT_ID).plus(more);
    List<List<Object>> rows = new ArrayList<>();
    eventRows.values().forEach(rs -> rs.forEach(f -> rows.add(f.values(held.columns()))));
    DuckDbRows.create(db, "held", held, rows);
    List<String> wrong = new ArrayList<>();
    for (io.tidemark.core.Column c : more) {
      String k = "\"" + c.name() + "\"";
      wrong.addAll(DuckDbRows.firstColumn(db, "SELECT 'event ' || h." + Events.EVENT_ID + " || ' has " + c.name()
          + " = ' || coalesce(CAST(h." + k + " AS VARCHAR), 'null') || ', first seen as ' || coalesce(CAST(f." + k
          + " AS VARCHAR), 'null') FROM held h LEFT JOIN first_seen f USING (" + Events.EVENT_ID + ") WHERE h." + k
          + " IS DISTINCT FROM f." + k));
    }
    return wrong;
  }

  /** Copies the raw table's Parquet files that may hold rows with event time in [lo, hi) to the work dir. */
  private List<Path> download(Table raw, long snapshot, Instant lo, Instant hi) throws IOException {
    List<Path> out = new ArrayList<>();
    Files.createDirectories(workDir);
    Set<String> seen = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = raw.newScan().useSnapshot(snapshot)
        .filter(Expressions.and(Expressions.greaterThanOrEqual(Events.EVENT_TS.name(), Times.micros(lo)),
            Expressions.lessThan(Events.EVENT_TS.name(), Times.micros(hi))))
        .planFiles()) {
      for (FileScanTask task : tasks) {
        URI uri = URI.create(task.file().location());
        if (!seen.add(uri.toString())) {
          continue;
        }
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

  /** A corrected window's key ("company|yyyy-MM-dd HH:mm:ss") as a person reads it: {@code c1 at 2026-01-01 00:05:00}. */
  static String window(String key) {
    int bar = key.lastIndexOf('|');
    return bar < 0 ? key : key.substring(0, bar) + " at " + key.substring(bar + 1);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
