package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.Dimension;
import io.tidemark.core.Scd2Since;
import io.tidemark.lakehouse.CommitKeys;
import io.tidemark.lakehouse.DriverReads;
import io.tidemark.lakehouse.IcebergFields;
import io.tidemark.lakehouse.Storage;
import io.tidemark.land.Feed;
import io.tidemark.land.LandingFile;
import io.tidemark.stream.BatchArrivals;
import io.tidemark.stream.StreamKind;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.DataOperations;

/**
 * The checks an arrival passes before it is published. Each looks only at what the staged commits changed (the rows
 * they appended, the keys they touched, the files they read), so its cost follows the arrival, not the history:
 * <ul>
 *   <li>{@value #WRITERS}: every staged snapshot was made by a stream, the restatement or compaction, and a stream's
 *       snapshot of an append-only table only appends (a row written or deleted by hand on the staging branch fails);</li>
 *   <li>{@value #LINES}: every line of each landed file the raw archives read is archived or quarantined;</li>
 *   <li>{@value #SCD2}: the SCD2 invariants on the companies the arrival changed, by induction on the published
 *       dimension (which passed them when it was published): the change log is read from each company's earliest
 *       staged change on, the dimension's versions of those companies in full (every file since its last
 *       compaction may hold some);</li>
 *   <li>{@value #WINDOWS}: the windows the arrival finalized are final under the counts stream's watermark, each
 *       written once, and count no more events than the raw archive holds in them;</li>
 *   <li>{@value #SAME_ARRIVALS}: the streams fed by one dataset have all taken in the same arrivals.</li>
 * </ul>
 */
public final class ArrivalChecks {
  public static final String WRITERS = "staged-writers";
  public static final String LINES = "lines-accounted";
  public static final String SCD2 = "scd2-invariants";
  public static final String WINDOWS = "windows-final";
  public static final String SAME_ARRIVALS = "same-arrivals";
  /** Rows a check reads on the driver at most: far above an arrival's. */
  private static final long BUDGET = 20_000_000;

  private final TidemarkConfig config;
  private final Tables t;
  private final Storage storage;

  public ArrivalChecks(TidemarkConfig config, Storage storage) {
    this.config = config;
    this.t = config.tables();
    this.storage = storage;
  }

  /** Every check on what is staged, in order; each passes when what it looks at was not staged. */
  public List<AuditCheck> run(Staged staged) {
    return run(staged, new LinkedHashMap<>());
  }

  /**
   * The same, putting each check's time into {@code timesMs} by its name. The checks read different tables and
   * files, and each mostly waits on object storage: they run at once, and so do the reads within a check.
   */
  public List<AuditCheck> run(Staged staged, Map<String, Long> timesMs) {
    ExecutorService checks = Executors.newFixedThreadPool(4, daemons("tidemark-check"));
    readPool = Executors.newFixedThreadPool(8, daemons("tidemark-check-read"));
    files = Executors.newFixedThreadPool(8, daemons("tidemark-check-file"));
    try {
      List<Function<Staged, AuditCheck>> all = List.of(this::writers, this::lines, this::scd2,
          this::windows, this::sameArrivals);
      List<CompletableFuture<AuditCheck>> running = all.stream().map(check -> CompletableFuture.supplyAsync(() -> {
        long t0 = System.nanoTime();
        AuditCheck c = check.apply(staged);
        times.put(c.name(), (System.nanoTime() - t0) / 1_000_000);
        return c;
      }, checks)).toList();
      List<AuditCheck> out = running.stream().map(ArrivalChecks::join).toList();
      out.forEach(c -> timesMs.put(c.name(), times.get(c.name())));
      times.forEach(timesMs::putIfAbsent);
      return out;
    } finally {
      checks.shutdown();
      readPool.shutdown();
      files.shutdown();
    }
  }

  /** The threads a check's reads run on ({@link #run} gives each run its own). */
  private ExecutorService readPool = ForkJoinPool.commonPool();
  /**
   * The threads that plan a read and read its files ({@link DriverReads#readAtOnce}): never waiting on each other,
   * apart from {@link #readPool}, whose reads wait on them.
   */
  private ExecutorService files = ForkJoinPool.commonPool();
  private final Map<String, Long> times = new ConcurrentHashMap<>();

  private <T> CompletableFuture<T> async(Supplier<T> task) {
    return CompletableFuture.supplyAsync(task, readPool);
  }

  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (java.util.concurrent.CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  private static java.util.concurrent.ThreadFactory daemons(String name) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  AuditCheck writers(Staged staged) {
    Set<TableName> appendOnly = Set.of(t.rawEvents(), t.rejected(), t.rawCompanyChanges(), t.events(),
        t.eventCounts(), t.companyChanges(), t.streamBatches());
    List<String> bad = new ArrayList<>();
    int seen = 0;
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        seen++;
        String stream = s.summary().get(CommitKeys.STREAM);
        if (DataOperations.REPLACE.equals(s.operation())) {
          continue; // compaction: the same rows in other files
        }
        if (stream == null) {
          bad.add(c.name() + " snapshot " + s.snapshotId() + " (" + s.operation() + ") made by none of tidemark's jobs");
        } else if (!CommitKeys.RESTATEMENT_STREAM.equals(stream) && appendOnly.contains(c.name())
            && !DataOperations.APPEND.equals(s.operation())) {
          bad.add(c.name() + " snapshot " + s.snapshotId() + ": stream " + stream + " did " + s.operation()
              + ", it only appends");
        }
      }
    }
    return AuditCheck.of(WRITERS, "staged tables", bad.size(), bad.isEmpty()
        ? seen + " staged snapshot(s), all by the streams, the restatement or compaction" : first(bad));
  }

  AuditCheck lines(Staged staged) {
    Map<String, long[]> perFile = new TreeMap<>();
    List<CompletableFuture<List<Record>>> reads = List.of(t.rawEvents(), t.rawCompanyChanges(), t.rejected())
        .stream().map(raw -> async(() -> appended(staged, raw, List.of("source_file")))).toList();
    for (CompletableFuture<List<Record>> read : reads) {
      for (Record r : join(read)) {
        perFile.computeIfAbsent((String) r.getField("source_file"), f -> new long[1])[0]++;
      }
    }
    Map<String, CompletableFuture<Optional<Long>>> landedLines = new LinkedHashMap<>();
    perFile.keySet().forEach(f -> landedLines.put(f, async(() -> landedLines(f))));
    List<String> bad = new ArrayList<>();
    int cleaned = 0;
    long lines = 0;
    for (Map.Entry<String, long[]> e : perFile.entrySet()) {
      Optional<Long> landed = join(landedLines.get(e.getKey()));
      if (landed.isEmpty()) {
        cleaned++;
        continue;
      }
      lines += landed.get();
      if (landed.get() != e.getValue()[0]) {
        bad.add(e.getKey() + ": " + landed.get() + " line(s) landed, " + e.getValue()[0] + " archived or quarantined");
      }
    }
    return AuditCheck.of(LINES, t.rawEvents() + ", " + t.rawCompanyChanges() + ", " + t.rejected(), bad.size(),
        bad.isEmpty() ? perFile.size() + " landed file(s), " + lines + " line(s), each archived or quarantined"
            + (cleaned > 0 ? " (" + cleaned + " file(s) no longer in the landing zone, not recounted)" : "")
            : first(bad));
  }

  /** Lines of a landed file, or empty when it is gone (cleaned up or archived after it was read). */
  private Optional<Long> landedLines(String sourceFile) {
    URI uri = URI.create(sourceFile);
    if (!config.landingBucket().equals(uri.getHost())) {
      return Optional.empty();
    }
    String key = uri.getPath().replaceFirst("^/", "");
    if (storage.stat(uri.getHost(), key).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new LandingFile(Feed.EVENTS, key, storage.get(uri.getHost(), key)).lines());
  }

  /**
   * The SCD2 invariants on the companies the staged changes touched, by induction: the published dimension passed
   * this check when it was published, so each company's history is rebuilt from its published versions before its
   * earliest staged change and the logged changes from then on ({@link Scd2Since}), and compared with all its
   * staged versions, the old ones included (an old version the arrival should not have touched is still checked).
   */
  AuditCheck scd2(Staged staged) {
    List<CompanyChange> arrived = appended(staged, t.companyChanges(), CompanyChanges.FEED.columns().names())
        .stream().map(r -> CompanyChange.of(IcebergFields.of(r))).toList();
    Map<String, Long> from = Scd2Since.earliest(arrived);
    if (from.isEmpty()) {
      // a dimension changed without its change log is a hand-made write, which the writers check names
      return AuditCheck.of(SCD2, t.companies().toString(), 0, "no company change staged");
    }
    Expression keys = Expressions.in(Dimension.COMPANY_ID.name(), from.keySet().toArray());
    Table dimension = staged.table(t.companies());
    Staged.Change dimensionChange = staged.changes().get(t.companies());
    // the dimension as published: where the staged one is when it did not change, none when it is new since
    Long published = dimensionChange != null ? dimensionChange.publishedSnapshot()
        : dimension.currentSnapshot() == null ? null : dimension.currentSnapshot().snapshotId();
    if (published != null && dimension.snapshot(published) == null) {
      // the published snapshot is gone from the staged table's metadata: check against every logged change
      from.replaceAll((company, time) -> Scd2Since.ALL);
      published = null;
    }
    Long at = published;
    List<String> versionColumns = Dimension.VERSION.names();
    // the staged versions and the published ones, from one read of the dimension's files when the staged commits
    // only added files to it (the streams' do); the change log's read meanwhile
    CompletableFuture<DriverReads.Reads> dimensionRead = async(() -> timed(SCD2 + " dimension ms",
        () -> at == null ? new DriverReads.Reads(DriverReads.readAtOnce(dimension, null, keys, versionColumns, files,
            BUDGET), DriverReads.Read.NONE)
        : dimensionChange == null ? twice(DriverReads.readAtOnce(dimension, null, keys, versionColumns, files, BUDGET))
        : DriverReads.readNowAndAt(dimension, at, keys, versionColumns, files, BUDGET)));
    DriverReads.Read logged = timed(SCD2 + " log ms", () -> DriverReads.readAtOnce(staged.table(t.companyChanges()),
        null, logFilter(from), CompanyChanges.FEED.columns().names(), files, BUDGET));
    DriverReads.Read stagedVersions = join(dimensionRead).now();
    DriverReads.Read publishedVersions = join(dimensionRead).then();
    List<CompanyChange> changes = new ArrayList<>(Scd2Since.asChanges(versions(publishedVersions), from));
    logged.rows().stream().map(r -> CompanyChange.of(IcebergFields.of(r))).filter(c -> Scd2Since.isFrom(c, from))
        .forEach(changes::add);
    List<CompanyVersion> versions = versions(stagedVersions);
    // what the reads' cost follows: files opened (the dimension's data and delete files)
    times.put(SCD2 + " log files", (long) logged.files());
    times.put(SCD2 + " dimension files", (long) stagedVersions.files() + stagedVersions.deleteFiles());
    times.put(SCD2 + " manifests", (long) manifests(staged.table(t.companyChanges())) + manifests(dimension));
    long d0 = System.nanoTime();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      List<Scd2Invariants.Violation> v = Scd2Invariants.check(db, versions, Optional.of(changes));
      times.put(SCD2 + " in duckdb", (System.nanoTime() - d0) / 1_000_000);
      return AuditCheck.of(SCD2, t.companies().toString(), v.size(), v.isEmpty() ? from.size()
          + " changed companies: one open version, no gap or overlap, equal to the history rebuilt from the "
          + "published versions and the changes since" : v.get(0).toString());
    } catch (SQLException e) {
      throw new IllegalStateException("the SCD2 check could not run in DuckDB: " + e.getMessage(), e);
    }
  }

  /** Companies past which a per-company filter is no longer worth evaluating row by row. */
  private static final int PER_COMPANY = 200;

  /**
   * The logged changes of each company from its earliest on ({@link Scd2Since}; rows still go through
   * {@link Scd2Since#isFrom}): the change log's files are bounded by company (bucketed) and change time, so files
   * written before the earliest change are not opened.
   */
  static Expression logFilter(Map<String, Long> from) {
    String company = CompanyChanges.COMPANY_ID.name();
    String time = CompanyChanges.CHANGE_TS.name();
    if (from.size() > PER_COMPANY) {
      Expression companies = Expressions.in(company, from.keySet().toArray());
      long earliest = from.values().stream().min(Long::compare).orElseThrow();
      return earliest == Scd2Since.ALL ? companies
          : Expressions.and(companies, Expressions.greaterThanOrEqual(time, earliest));
    }
    Expression any = Expressions.alwaysFalse();
    for (Map.Entry<String, Long> e : from.entrySet()) {
      Expression one = Expressions.equal(company, e.getKey());
      any = Expressions.or(any, e.getValue() == Scd2Since.ALL ? one
          : Expressions.and(one, Expressions.greaterThanOrEqual(time, e.getValue())));
    }
    return any;
  }

  private static List<CompanyVersion> versions(DriverReads.Read read) {
    return read.rows().stream().map(r -> CompanyVersion.of(IcebergFields.of(r))).toList();
  }

  /** The manifests a plan of the table's current snapshot opens (printed by the benchmark, next to the files). */
  private static int manifests(Table table) {
    return table.currentSnapshot() == null ? 0 : table.currentSnapshot().allManifests(table.io()).size();
  }

  private static DriverReads.Reads twice(DriverReads.Read read) {
    return new DriverReads.Reads(read, read);
  }

  private <T> T timed(String name, Supplier<T> read) {
    long t0 = System.nanoTime();
    T out = read.get();
    times.put(name, (System.nanoTime() - t0) / 1_000_000);
    return out;
  }

  AuditCheck windows(Staged staged) {
    Staged.Change counts = staged.changes().get(t.eventCounts());
    if (counts == null) {
      return AuditCheck.of(WINDOWS, t.eventCounts().toString(), 0, "no window finalized");
    }
    long windowMs = config.countsWindow().toMillis();
    long watermark = counts.snapshots().stream().map(s -> s.summary().get(CommitKeys.WATERMARK_MS))
        .filter(java.util.Objects::nonNull).mapToLong(Long::parseLong).max().orElse(Long.MIN_VALUE);
    List<Record> staged1 = appended(staged, t.eventCounts(), List.of("company_id", "w_start", "n"));
    List<String> bad = new ArrayList<>();
    Map<String, Long> written = new HashMap<>();
    Set<Object> starts = new HashSet<>();
    for (Record r : staged1) {
      String id = (String) r.getField("company_id");
      long start = micros(r.getField("w_start")) / 1000;
      long n = (Long) r.getField("n");
      String w = id + " " + Instant.ofEpochMilli(start);
      if (written.put(id + "@" + start, n) != null) {
        bad.add("window " + w + " written twice");
      }
      if (n < 1 || start % windowMs != 0) {
        bad.add("window " + w + " holds n=" + n + (start % windowMs != 0 ? ", not on a window boundary" : ""));
      }
      if (start + windowMs > watermark) {
        // no watermark at all: a commit that says it is the counts stream's but carries none of its provenance
        bad.add("window " + w + " written before the watermark (" + (watermark == Long.MIN_VALUE ? "none staged"
            : Instant.ofEpochMilli(watermark)) + ") passed its end");
      }
      // as micros: Iceberg makes no literal of the OffsetDateTime the reader returns
      starts.add(micros(r.getField("w_start")));
    }
    if (!written.isEmpty()) {
      long from = written.keySet().stream().mapToLong(k -> Long.parseLong(k.substring(k.lastIndexOf('@') + 1)))
          .min().orElseThrow();
      long to = written.keySet().stream().mapToLong(k -> Long.parseLong(k.substring(k.lastIndexOf('@') + 1)))
          .max().orElseThrow() + windowMs;
      // the windows published before, read only where the staged ones lie: the range keeps the files' column
      // bounds pruning when IN has too many values for Iceberg to use them
      Expression published = Expressions.and(Expressions.in("w_start", starts.toArray()), Expressions.and(
          Expressions.greaterThanOrEqual("w_start", from * 1000), Expressions.lessThan("w_start", to * 1000)));
      CompletableFuture<DriverReads.Read> before = counts.publishedSnapshot() == null
          ? CompletableFuture.completedFuture(DriverReads.Read.NONE)
          : async(() -> DriverReads.readAtOnce(counts.table(), counts.publishedSnapshot(), published,
              List.of("company_id", "w_start"), files, BUDGET));
      Expression range = Expressions.and(Expressions.greaterThanOrEqual("event_ts", from * 1000),
          Expressions.lessThan("event_ts", to * 1000));
      CompletableFuture<DriverReads.Read> rawRows = async(() -> DriverReads.readAtOnce(staged.table(t.rawEvents()),
          null, range, List.of("company_id", "event_ts"), files, BUDGET));
      times.put(WINDOWS + " files", (long) (join(before).files() + join(rawRows).files()));
      times.put(WINDOWS + " manifests", (long) manifests(counts.table()) + manifests(staged.table(t.rawEvents())));
      for (Record r : join(before).rows()) {
        String key = r.getField("company_id") + "@" + micros(r.getField("w_start")) / 1000;
        if (written.containsKey(key)) {
          bad.add("window " + key + " was published before");
        }
      }
      Map<String, Long> raw = new HashMap<>();
      for (Record r : join(rawRows).rows()) {
        long ts = micros(r.getField("event_ts")) / 1000;
        raw.merge(r.getField("company_id") + "@" + (ts - Math.floorMod(ts, windowMs)), 1L, Long::sum);
      }
      written.forEach((k, n) -> {
        if (n > raw.getOrDefault(k, 0L)) {
          bad.add("window " + k + " counts " + n + " events, the raw archive holds " + raw.getOrDefault(k, 0L));
        }
      });
    }
    return AuditCheck.of(WINDOWS, t.eventCounts().toString(), bad.size(), bad.isEmpty() ? written.size()
        + " finalized window(s): once each, final under the watermark, within the raw archive's events"
        : first(bad));
  }

  AuditCheck sameArrivals(Staged staged) {
    Map<String, Integer> newest = new LinkedHashMap<>();
    for (Record r : appended(staged, t.streamBatches(), List.of("stream", "arrival"))) {
      Integer a = (Integer) r.getField("arrival");
      if (a != null) {
        newest.merge((String) r.getField("stream"), a, Math::max);
      }
    }
    // a run killed before `stream all` recorded its batches (the record is committed when every run has ended)
    // leaves commits of some streams and no record: the commits' own provenance says which arrivals they read
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        String stream = s.summary().get(CommitKeys.STREAM);
        SortedSet<Integer> read = BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS));
        if (stream != null && !read.isEmpty()) {
          newest.merge(stream, read.last(), Math::max);
        }
      }
    }
    List<String> bad = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Feed feed : Feed.values()) {
      Map<String, Integer> ofFeed = new TreeMap<>();
      for (StreamKind k : StreamKind.values()) {
        if (k.dataset() == feed && newest.containsKey(k.streamName())) {
          ofFeed.put(k.streamName(), newest.get(k.streamName()));
        }
      }
      if (ofFeed.isEmpty()) {
        continue;
      }
      int max = ofFeed.values().stream().max(Integer::compare).orElseThrow();
      List<String> ahead = new ArrayList<>();
      List<String> behind = new ArrayList<>();
      for (StreamKind k : StreamKind.values()) {
        if (k.dataset() == feed) {
          Integer a = ofFeed.get(k.streamName());
          if (a != null && a == max) {
            ahead.add(k.streamName());
          } else {
            behind.add(k.streamName() + " " + (a == null ? "none staged" : "up to " + a));
          }
        }
      }
      if (!behind.isEmpty()) {
        bad.add(feed.dir() + ": " + String.join(", ", ahead) + " took in arrival " + max + ", "
            + String.join(", ", behind) + " (run `tidemark stream all`)");
      }
      seen.add(feed.dir() + " up to arrival " + max);
    }
    bad.addAll(unrecorded(staged));
    return AuditCheck.of(SAME_ARRIVALS, t.streamBatches().toString(), bad.size(), bad.isEmpty()
        ? (seen.isEmpty() ? "no stream run staged" : "every stream has taken in " + String.join("; ", seen))
        : String.join("; ", bad));
  }

  /**
   * The staged commits of stream batches whose run has not ended: a batch of a stream writes each of its tables in
   * a commit of its own (the dimension and its change log, the archive and the quarantine), so a run killed between
   * them leaves part of the batch, which the provenance of the part alone cannot tell. The runs' record is committed
   * once the run ended (by {@code stream all} when all its runs have), or recovered from the checkpoint by the next
   * run, and its commit says per query the newest batch it recorded: a staged batch that no staged record covers is
   * not known to be whole.
   */
  private List<String> unrecorded(Staged staged) {
    Map<String, Long> recorded = new HashMap<>();
    Staged.Change records = staged.changes().get(t.streamBatches());
    if (records != null) {
      for (Snapshot s : records.snapshots()) {
        s.summary().forEach((k, v) -> {
          if (k.startsWith(CommitKeys.RECORDED)) {
            recorded.merge(k.substring(CommitKeys.RECORDED.length()), Long.parseLong(v), Math::max);
          }
        });
      }
    }
    Map<String, String> open = new LinkedHashMap<>();
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        String query = s.summary().get(CommitKeys.QUERY_ID);
        String batch = s.summary().get(CommitKeys.BATCH_ID);
        if (query != null && batch != null && Long.parseLong(batch) > recorded.getOrDefault(query, -1L)) {
          String arrivals = s.summary().get(CommitKeys.ARRIVALS);
          open.merge(s.summary().get(CommitKeys.STREAM) + " batch " + batch
              + (arrivals == null ? "" : " (arrival " + arrivals + ")"), c.name().toString(), (a, b) -> a + ", " + b);
        }
      }
    }
    List<String> out = new ArrayList<>();
    open.forEach((batch, tables) -> out.add(batch + " committed to " + tables + " and not recorded: its run did "
        + "not end"));
    return out.isEmpty() ? out : List.of(String.join(", ", out) + " (run `tidemark stream all`)");
  }

  /**
   * The rows the staged appends added to a table (none when it did not change): snapshot by snapshot, as the
   * restatement's overwrites (audited by the restatement itself) and compaction's rewrites add no new rows.
   */
  private static List<Record> appended(Staged staged, TableName table, List<String> columns) {
    Staged.Change c = staged.changes().get(table);
    if (c == null) {
      return List.of();
    }
    List<Record> out = new ArrayList<>();
    for (Snapshot s : c.snapshots()) {
      if (!DataOperations.APPEND.equals(s.operation())) {
        continue;
      }
      out.addAll(s.parentId() == null
          ? DriverReads.read(c.table(), s.snapshotId(), Expressions.alwaysTrue(), columns, false, BUDGET)
          : DriverReads.appended(c.table(), s.parentId(), s.snapshotId(), Expressions.alwaysTrue(), columns, BUDGET));
    }
    return out;
  }

  private static long micros(Object ts) {
    if (ts instanceof Long l) {
      return l;
    }
    if (ts instanceof java.time.OffsetDateTime o) {
      return o.toInstant().toEpochMilli() * 1000;
    }
    if (ts instanceof LocalDateTime l) {
      return l.toInstant(ZoneOffset.UTC).toEpochMilli() * 1000;
    }
    throw new IllegalArgumentException("not a timestamp: " + ts);
  }

  private static String first(List<String> problems) {
    return problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : "");
  }
}
