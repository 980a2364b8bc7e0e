package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.Measure;
import io.tidemark.core.Occurrence;
import io.tidemark.core.Schema;
import io.tidemark.core.Times;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.KeyFilters;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The audit of a restatement branch before it is published, in one pass over what was corrected: the branch's rows of
 * the corrected windows, records and keys read once on the driver; invariants of what was corrected (counts at least
 * 1, one row per window, no count going down, one row per record key, the SCD2 invariants of the rebuilt keys); and an
 * independent recomputation in DuckDB of the corrected windows and first occurrences from each raw archive's own
 * Parquet files (only those that may hold the corrected rows), copied from S3 with the MinIO client (DuckDB reads
 * local files only here). Each check that fails names where.
 */
public final class RestatementAudit {
  private static final Duration DUPLICATE_SPREAD = CorrectionRules.DUPLICATE_SPREAD;

  /** The branch's tables as audited (each at the one commit it is loaded at), and the raw archives' snapshots read. */
  public record Subject(Function<TableName, Table> tables, Map<String, Long> rawSnapshots) {}

  private final Storage storage;
  private final Pipeline pipeline;
  private final Path workDir;

  public RestatementAudit(Storage storage, Pipeline pipeline, Path workDir) {
    this.storage = storage;
    this.pipeline = pipeline;
    this.workDir = workDir;
  }

  public List<AuditCheck> audit(Subject s, CorrectionSet c) throws IOException, SQLException {
    List<AuditCheck> checks = new ArrayList<>();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement st = db.createStatement()) {
        st.execute("SET TimeZone = 'UTC'");
      }
      for (FactFeed f : pipeline.facts()) {
        checks.addAll(fact(db, s, f, c));
      }
      for (DimensionFeed d : pipeline.dimensions()) {
        List<List<Object>> keys = c.keysOf(d.name());
        if (!keys.isEmpty()) {
          checks.add(scd2(db, s, d, keys));
        }
      }
    }
    return checks;
  }

  /** The checks of a fact feed's corrected windows and records. */
  private List<AuditCheck> fact(Connection db, Subject s, FactFeed f, CorrectionSet c)
      throws IOException, SQLException {
    Table raw = s.tables().apply(f.raw().table());
    // the fields promoted into the feed (tidemark evolve): a corrected record must hold its first occurrence's values
    FeedSchema declared = FeedDeclarations.of(raw, f.schema());
    List<AuditCheck> checks = new ArrayList<>();
    Map<Aggregate, Map<Aggregation.Key, List<List<Object>>>> windows = new LinkedHashMap<>();
    Instant lo = Instant.MAX;
    Instant hi = Instant.MIN;
    for (Aggregate a : f.aggregates()) {
      List<CorrectionSet.WindowFix> fixes = c.windowsOf(a.name());
      if (fixes.isEmpty()) {
        continue;
      }
      Map<Aggregation.Key, List<List<Object>>> onBranch = windowRows(s.tables().apply(a.table()), a, fixes);
      windows.put(a, onBranch);
      checks.addAll(windowInvariants(a, fixes, onBranch));
      for (CorrectionSet.WindowFix w : fixes) {
        lo = min(lo, w.start());
        hi = max(hi, a.rule().windows().end(w.start()));
      }
    }
    List<CorrectionSet.RecordFix> records = c.recordsOf(f.name());
    Map<List<Object>, List<Fields>> held = records.isEmpty() ? Map.of()
        : recordRows(s.tables().apply(f.dedupTable()), declared, records);
    if (!records.isEmpty()) {
      List<String> twice = new ArrayList<>();
      held.forEach((k, rows) -> {
        if (rows.size() != 1) {
          twice.add(f.name() + " " + keyText(k) + " holds " + rows.size() + " rows");
        }
      });
      records.stream().filter(r -> !held.containsKey(r.key()) || held.get(r.key()).isEmpty())
          .forEach(r -> twice.add(f.name() + " " + keyText(r.key()) + " holds no row"));
      checks.add(AuditCheck.of(f.name() + ": one row per " + f.schema().keyList(), f.dedupTable().toString(), twice,
          records.size() + " corrected key(s) hold one row each"));
      for (CorrectionSet.RecordFix r : records) {
        Instant t = new Occurrence(r.first(), null, null, null).eventTime(declared);
        lo = min(lo, t.minus(DUPLICATE_SPREAD));
        hi = max(hi, t.plus(DUPLICATE_SPREAD));
      }
    }
    if (windows.isEmpty() && records.isEmpty()) {
      return checks;
    }
    String view = "raw_" + f.name();
    List<Path> files = download(raw, s.rawSnapshots().get(f.raw().table().toString()), declared.eventTime(), lo, hi);
    load(db, view, files, f, declared);
    for (Map.Entry<Aggregate, Map<Aggregation.Key, List<List<Object>>>> e : windows.entrySet()) {
      checks.add(recount(db, view, f, e.getKey(), e.getValue(), files.size()));
    }
    if (!records.isEmpty()) {
      checks.add(firstOccurrences(db, view, f, declared, held, records.size()));
    }
    return checks;
  }

  /** The branch's rows of an aggregate's corrected windows: each window's measures, row by row. */
  private static Map<Aggregation.Key, List<List<Object>>> windowRows(Table table, Aggregate a,
                                                                     List<CorrectionSet.WindowFix> fixes) {
    Aggregation rule = a.rule();
    Set<Aggregation.Key> keys = fixes.stream().map(CorrectionSet.WindowFix::key).collect(Collectors.toSet());
    Instant lo = fixes.stream().map(CorrectionSet.WindowFix::start).min(Instant::compareTo).orElseThrow();
    Instant hi = fixes.stream().map(CorrectionSet.WindowFix::start).max(Instant::compareTo).orElseThrow();
    String start = rule.windowStart().name();
    Expression filter = Expressions.and(KeyFilters.of(rule.groupBy(), keys.stream().map(Aggregation.Key::group)
            .toList()), Expressions.and(Expressions.greaterThanOrEqual(start, Times.micros(lo)),
        Expressions.lessThanOrEqual(start, Times.micros(hi))));
    Map<Aggregation.Key, List<List<Object>>> out = new LinkedHashMap<>();
    keys.forEach(k -> out.put(k, new ArrayList<>()));
    for (Record r : DriverReads.read(table, null, filter, rule.schema().names(), false, Long.MAX_VALUE)) {
      Fields f = IcebergFields.of(r);
      Aggregation.Key k = rule.keyOfOutput(f);
      if (keys.contains(k)) {
        out.get(k).add(rule.measuresOf(f));
      }
    }
    return out;
  }

  /** Counts at least 1, one row per window, no count going down. */
  private static List<AuditCheck> windowInvariants(Aggregate a, List<CorrectionSet.WindowFix> fixes,
                                                   Map<Aggregation.Key, List<List<Object>>> onBranch) {
    Aggregation rule = a.rule();
    String table = a.table().toString();
    List<AuditCheck> checks = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    for (int i = 0; i < rule.measures().size(); i++) {
      if (rule.measures().get(i).function() == Measure.Function.COUNT) {
        counts.add(i);
      }
    }
    if (!counts.isEmpty()) {
      List<String> low = new ArrayList<>();
      onBranch.forEach((k, rows) -> rows.forEach(m -> counts.forEach(i -> {
        Object n = m.get(i);
        if (n == null || (Long) n < 1) {
          low.add("window " + window(k) + " has " + rule.measures().get(i).name() + "=" + n);
        }
      })));
      checks.add(AuditCheck.of(a.name() + ": counts >= 1", table, low, "every corrected window counts 1 or more"));
    }
    List<String> notOne = new ArrayList<>();
    onBranch.forEach((k, rows) -> {
      if (rows.size() != 1) {
        notOne.add("window " + window(k) + " holds " + rows.size() + " rows");
      }
    });
    String group = String.join(", ", rule.groupBy().stream().map(Column::name).toList());
    checks.add(AuditCheck.of(a.name() + ": one row per (" + group + ", window)", table, notOne,
        onBranch.size() + " corrected window(s) hold one row each"));
    if (!counts.isEmpty()) {
      List<String> down = new ArrayList<>();
      for (CorrectionSet.WindowFix w : fixes) {
        for (int i : counts) {
          if (w.old() != null && (Long) w.old().get(i) > (Long) w.fresh().get(i)) {
            down.add("window " + window(w.key()) + ": " + rule.measures().get(i).name() + " " + w.old().get(i)
                + " -> " + w.fresh().get(i));
          }
        }
      }
      checks.add(AuditCheck.of(a.name() + ": no window loses rows", table, down,
          "no count went down (one that does means the raw archive is behind the stream: run `tidemark stream "
              + "all` first)"));
    }
    return checks;
  }

  /** The branch's rows of the corrected keys, with every column of the feed as declared (promoted ones too). */
  private static Map<List<Object>, List<Fields>> recordRows(Table table, FeedSchema declared,
                                                            List<CorrectionSet.RecordFix> corrected) {
    Set<List<Object>> keys = corrected.stream().map(CorrectionSet.RecordFix::key).collect(Collectors.toSet());
    Map<List<Object>, List<Fields>> out = new LinkedHashMap<>();
    for (Record r : DriverReads.read(table, null, KeyFilters.of(declared.key(), keys),
        declared.columns().names(), false, Long.MAX_VALUE)) {
      Fields f = IcebergFields.of(r);
      List<Object> k = f.values(declared.key());
      if (keys.contains(k)) {
        out.computeIfAbsent(k, x -> new ArrayList<>()).add(f);
      }
    }
    return out;
  }

  /** The rebuilt keys of a dimension: their versions against their change log, by DuckDB. */
  private AuditCheck scd2(Connection db, Subject s, DimensionFeed d, List<List<Object>> keys) throws SQLException {
    Table log = s.tables().apply(d.changes());
    DimensionSchema declared = FeedDeclarations.of(log, d.dimension());
    Expression theirs = KeyFilters.of(declared.key(), keys);
    Set<List<Object>> exact = new HashSet<>(keys);
    List<Version> versions = DriverReads.read(s.tables().apply(d.table()), null, theirs, declared.version().names(),
        false, Long.MAX_VALUE).stream().map(r -> declared.versionOf(IcebergFields.of(r)))
        .filter(v -> exact.contains(v.key())).toList();
    List<Change> changes = DriverReads.read(log, null, theirs, declared.logged().names(), false, Long.MAX_VALUE)
        .stream().map(r -> declared.change(IcebergFields.of(r))).filter(c -> exact.contains(c.key())).toList();
    List<Scd2Invariants.Violation> v = Scd2Invariants.check(db, versions, Optional.of(changes), declared);
    return AuditCheck.of(d.name() + ": SCD2 invariants", d.table().toString(),
        v.stream().map(Scd2Invariants.Violation::toString).toList(), keys.size() + " rebuilt key(s): one open "
            + "version, no gap or overlap, equal to the rebuild from the change log");
  }

  /** The raw Parquet files as a DuckDB table, by name (files written before a promotion lack its column). */
  private static void load(Connection db, String view, List<Path> files, FactFeed f, FeedSchema declared)
      throws SQLException {
    try (Statement st = db.createStatement()) {
      st.execute(files.isEmpty()
          ? "CREATE OR REPLACE TABLE " + view + " (" + duckDbColumns(TableCatalog.raw(f.raw().table(), declared).columns())
              + ")"
          : "CREATE OR REPLACE TABLE " + view + " AS SELECT * FROM read_parquet([" + files.stream()
              .map(p -> "'" + p.toAbsolutePath() + "'").collect(Collectors.joining(", "))
              + "], union_by_name = true)");
      Set<String> present = new HashSet<>();
      try (ResultSet rs = st.executeQuery("SELECT column_name FROM information_schema.columns WHERE table_name = '"
          + view + "'")) {
        while (rs.next()) {
          present.add(rs.getString(1));
        }
      }
      for (Column c : declared.columns().columns()) {
        if (!present.contains(c.name())) {
          st.execute("ALTER TABLE " + view + " ADD COLUMN " + DuckDbValues.quoted(c) + " " + c.type().duckDb());
        }
      }
    }
  }

  /** DuckDB recomputes an aggregate's windows from the raw rows, each compared with the branch's rows of it. */
  private static AuditCheck recount(Connection db, String view, FactFeed f, Aggregate a,
                                    Map<Aggregation.Key, List<List<Object>>> onBranch, int files) throws SQLException {
    Aggregation rule = a.rule();
    List<String> select = new ArrayList<>();
    rule.groupBy().forEach(g -> select.add(DuckDbValues.select(DuckDbValues.quoted(g), g.type())));
    String bucket = "time_bucket(INTERVAL " + rule.windows().size().toSeconds() + " SECOND, "
        + DuckDbValues.quoted(f.schema().eventTime()) + ", TIMESTAMPTZ '1970-01-01 00:00:00+00')";
    select.add("epoch_us(" + bucket + ")");
    for (Measure m : rule.measures()) {
      String v = switch (m.function()) {
        case COUNT -> "count(*)";
        case SUM -> "sum(" + DuckDbValues.quoted(m.of()) + ")";
        case MIN -> "min(" + DuckDbValues.quoted(m.of()) + ")";
        case MAX -> "max(" + DuckDbValues.quoted(m.of()) + ")";
      };
      select.add(DuckDbValues.select(m.type().isNumeric() ? "CAST(" + v + " AS " + m.type().duckDb() + ")" : v,
          m.type()));
    }
    Map<Aggregation.Key, List<Object>> expected = new HashMap<>();
    try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT " + String.join(", ", select)
        + " FROM " + view + " GROUP BY ALL")) {
      while (rs.next()) {
        List<Object> group = new ArrayList<>();
        int i = 1;
        for (Column g : rule.groupBy()) {
          group.add(DuckDbValues.read(rs, i++, g.type()));
        }
        Instant start = Times.ofMicros(rs.getLong(i++));
        List<Object> measures = new ArrayList<>();
        for (Measure m : rule.measures()) {
          measures.add(DuckDbValues.read(rs, i++, m.type()));
        }
        expected.put(new Aggregation.Key(group, start), measures);
      }
    }
    List<String> wrong = new ArrayList<>();
    onBranch.forEach((k, rows) -> rows.forEach(m -> {
      List<Object> e = expected.get(k);
      if (e == null || !rule.same(m, e)) {
        wrong.add("window " + window(k) + " holds " + measures(rule, m) + ", DuckDB computes "
            + (e == null ? "no row" : measures(rule, e)));
      }
    }));
    return AuditCheck.of(a.name() + ": DuckDB recount from the raw archive", a.table().toString(), wrong,
        onBranch.size() + " corrected window(s) equal DuckDB's over " + files + " raw Parquet file(s)");
  }

  /**
   * DuckDB picks each corrected key's first occurrence from the raw rows (the restatement's order: where it came in,
   * then every column but the key, nulls first) and compares the branch's row with it, column by column, null-safe,
   * each in its own type.
   */
  private static AuditCheck firstOccurrences(Connection db, String view, FactFeed f, FeedSchema declared,
                                             Map<List<Object>, List<Fields>> held, int corrected)
      throws SQLException {
    String key = declared.key().stream().map(DuckDbValues::quoted).collect(Collectors.joining(", "));
    List<String> order = new ArrayList<>();
    for (Column c : List.of(Ingest.BATCH_ID, Ingest.SOURCE_FILE, Ingest.INGEST_TS)) {
      order.add(DuckDbValues.quoted(c) + " NULLS FIRST");
    }
    Occurrence.orderedBy(f.schema()).forEach(c -> order.add(DuckDbValues.quoted(c) + " NULLS FIRST"));
    Schema columns = declared.columns();
    try (Statement st = db.createStatement()) {
      st.execute("CREATE OR REPLACE TABLE first_seen AS SELECT " + columns.columns().stream()
          .map(DuckDbValues::quoted).collect(Collectors.joining(", ")) + " FROM " + view
          + " QUALIFY row_number() OVER (PARTITION BY " + key + " ORDER BY " + String.join(", ", order) + ") = 1");
    }
    List<List<Object>> rows = new ArrayList<>();
    held.values().forEach(rs -> rs.forEach(r -> rows.add(r.values(columns.columns()))));
    DuckDbRows.create(db, "held", columns, rows);
    List<String> wrong = new ArrayList<>();
    String keyText = declared.key().stream().map(c -> "CAST(h." + DuckDbValues.quoted(c) + " AS VARCHAR)")
        .collect(Collectors.joining(" || '|' || "));
    String on = declared.key().stream().map(c -> "h." + DuckDbValues.quoted(c) + " = s." + DuckDbValues.quoted(c))
        .collect(Collectors.joining(" AND "));
    for (Column c : columns.columns()) {
      if (declared.key().contains(c)) {
        continue;
      }
      String k = DuckDbValues.quoted(c);
      wrong.addAll(DuckDbRows.firstColumn(db, "SELECT 'event ' || " + keyText + " || ' has " + c.name()
          + " = ' || coalesce(CAST(h." + k + " AS VARCHAR), 'null') || ', first seen as ' || coalesce(CAST(s." + k
          + " AS VARCHAR), 'null') FROM held h LEFT JOIN first_seen s ON " + on + " WHERE h." + k
          + " IS DISTINCT FROM s." + k));
    }
    List<Column> promoted = declared.beyond(f.schema());
    return AuditCheck.of(f.name() + ": DuckDB first occurrence from the raw archive", f.dedupTable().toString(),
        wrong, corrected + " corrected key(s) hold their first occurrence" + (promoted.isEmpty() ? ""
            : " and its " + promoted.stream().map(Column::name).collect(Collectors.joining(", "))));
  }

  /** Copies the raw table's Parquet files that may hold rows with event time in [lo, hi) to the work dir. */
  private List<Path> download(Table raw, Long snapshot, Column eventTime, Instant lo, Instant hi)
      throws IOException {
    List<Path> out = new ArrayList<>();
    if (snapshot == null) {
      return out;
    }
    Files.createDirectories(workDir);
    Set<String> seen = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = raw.newScan().useSnapshot(snapshot)
        .filter(Expressions.and(Expressions.greaterThanOrEqual(eventTime.name(), Times.micros(lo)),
            Expressions.lessThan(eventTime.name(), Times.micros(hi))))
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
  static String duckDbColumns(Map<String, String> columns) {
    List<String> cols = new ArrayList<>();
    columns.forEach((name, type) -> cols.add("\"" + name + "\" " + switch (type) {
      case "INT" -> "INTEGER";
      case "STRING" -> "VARCHAR";
      case "TIMESTAMP" -> "TIMESTAMPTZ";
      default -> type;
    }));
    return String.join(", ", cols);
  }

  private static String window(Aggregation.Key k) {
    return keyText(k.group()) + " " + k.start();
  }

  private static String keyText(List<Object> key) {
    return String.join("|", key.stream().map(DuckDbValues::show).toList());
  }

  private static String measures(Aggregation rule, List<Object> values) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < rule.measures().size(); i++) {
      out.add(rule.measures().get(i).name() + "=" + DuckDbValues.show(values.get(i)));
    }
    return String.join(", ", out);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }
}
