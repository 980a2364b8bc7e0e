package io.tidemark.restate;

import io.tidemark.audit.RestatementAudit;
import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.lakehouse.DriverReads;
import io.tidemark.lakehouse.SparkOrder;
import io.tidemark.restate.CorrectionSet.EventFix;
import io.tidemark.restate.CorrectionSet.LateChange;
import io.tidemark.restate.CorrectionSet.WindowFix;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The corrections worked out on the driver, from the tables read with Iceberg's readers: what the streams'
 * watermarks dropped, for the few rows a restatement of a few late events reads. The same rules as
 * {@link SparkCorrections}, which takes over when the rows to read pass the budget: only candidates are looked at,
 * rows the raw archives got since the last restatement and rows of windows, ids and changes that became final
 * since then (their event time lies between the last run's watermark and this one's), so the work follows the late
 * data, not the size of the tables.
 */
final class DriverCorrections {
  private final PinnedTables at;
  private final Tables tables;
  private final Marks before;
  private final Marks now;
  private final long windowSeconds;
  private long budget;

  /** {@code at}: the tables as the plan reads them; {@code budget}: rows it may read before Spark takes over. */
  DriverCorrections(PinnedTables at, Tables tables, Marks before, Marks now, Duration window, long budget) {
    this.at = at;
    this.tables = tables;
    this.before = before;
    this.now = now;
    this.windowSeconds = window.toSeconds();
    this.budget = budget;
  }

  CorrectionSet compute() {
    // what the archives got since the last restatement is read whole: too much of it, and Spark takes over at once
    long appended = appendedRows(tables.rawEvents(), before.rawEvents(), now.rawEvents())
        + appendedRows(tables.rawCompanyChanges(), before.rawChanges(), now.rawChanges());
    if (appended > budget) {
      throw new DriverReads.TooManyRows(tables.rawEvents() + " and " + tables.rawCompanyChanges(), budget);
    }
    return new CorrectionSet(counts(), dedup(), companyChanges());
  }

  private long appendedRows(TableName raw, Optional<Long> from, Optional<Long> to) {
    return to.isEmpty() || from.equals(to) ? 0 : DriverReads.rowsAppended(at.get(raw), from.orElse(null), to.get());
  }

  /** Rows of {@code columns}, counted against the budget. */
  private List<Record> read(TableName t, long snapshot, Expression filter, String... columns) {
    List<Record> rows = DriverReads.read(at.get(t), snapshot, filter, List.of(columns), false, budget);
    budget -= rows.size();
    return rows;
  }

  /** The raw events the archive got since the last restatement, read once for the counts and the dedup. */
  private List<Record> appendedEvents;

  private List<Record> appendedEvents() {
    if (appendedEvents == null) {
      appendedEvents = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents(), "event_id", "company_id",
          "event_ts");
    }
    return appendedEvents;
  }

  /** The raw rows the archive got after {@code from}, up to {@code to}; all of them without a start. */
  private List<Record> appended(TableName raw, Optional<Long> from, Optional<Long> to, String... columns) {
    if (to.isEmpty() || from.equals(to)) {
      return List.of();
    }
    if (from.isEmpty()) {
      return read(raw, to.get(), Expressions.alwaysTrue(), columns);
    }
    List<Record> rows = DriverReads.appended(at.get(raw), from.get(), to.get(), Expressions.alwaysTrue(),
        List.of(columns), budget);
    budget -= rows.size();
    return rows;
  }

  /** Raw rows, as of this run's snapshot, with {@code time} in (after, upTo]; none without an upper bound. */
  private List<Record> between(TableName raw, Optional<Long> snapshot, String time, Optional<Instant> after,
                               Optional<Instant> upTo, String... columns) {
    if (snapshot.isEmpty() || upTo.isEmpty() || after.isPresent() && !upTo.get().isAfter(after.get())) {
      return List.of();
    }
    Expression range = Expressions.lessThanOrEqual(time, micros(upTo.get()));
    if (after.isPresent()) {
      range = Expressions.and(range, Expressions.greaterThan(time, micros(after.get())));
    }
    return read(raw, snapshot.get(), range, columns);
  }

  private long windowStart(Instant ts) {
    return Math.floorDiv(ts.getEpochSecond(), windowSeconds) * windowSeconds;
  }

  /** A window as the counts table keys it. */
  private record Window(String companyId, long startSecond) {}

  /**
   * Finalized windows whose count differs from the raw archive's. The stream's count is of every valid event line,
   * repeats included, so that is what the raw archive is counted for. A window of events without a company is
   * left alone, as a join on the company leaves it.
   */
  List<WindowFix> counts() {
    if (now.counts().isEmpty()) {
      return List.of();
    }
    long w = now.counts().get().toEpochMilli();
    Optional<Instant> afterWindows = before.counts().map(p -> p.minusSeconds(windowSeconds));
    List<Record> rows = new ArrayList<>(appendedEvents());
    rows.addAll(between(tables.rawEvents(), now.rawEvents(), "event_ts", afterWindows, now.counts(), "company_id",
        "event_ts"));
    Set<Window> candidates = new LinkedHashSet<>();
    for (Record r : rows) {
      String company = (String) r.getField("company_id");
      long start = windowStart(instant(r.getField("event_ts")));
      if (company != null && (start + windowSeconds) * 1000 <= w) {
        candidates.add(new Window(company, start));
      }
    }
    if (candidates.isEmpty()) {
      return List.of();
    }
    long lo = candidates.stream().mapToLong(Window::startSecond).min().orElseThrow();
    long hi = candidates.stream().mapToLong(Window::startSecond).max().orElseThrow() + windowSeconds;
    Map<Window, Long> fresh = new HashMap<>();
    for (Record r : read(tables.rawEvents(), now.rawEvents().get(), Expressions.and(
        Expressions.greaterThanOrEqual("event_ts", lo * 1_000_000), Expressions.lessThan("event_ts", hi * 1_000_000)),
        "company_id", "event_ts")) {
      Window k = new Window((String) r.getField("company_id"), windowStart(instant(r.getField("event_ts"))));
      if (candidates.contains(k)) {
        fresh.merge(k, 1L, Long::sum);
      }
    }
    Map<Window, List<Long>> held = new HashMap<>();
    Set<String> companies = new HashSet<>();
    candidates.forEach(k -> companies.add(k.companyId()));
    TableName counts = tables.eventCounts();
    Long countsAt = at.snapshot(counts);
    if (countsAt != null) {
      for (Record r : read(counts, countsAt, Expressions.and(Expressions.in("company_id", companies.toArray()),
          Expressions.and(Expressions.greaterThanOrEqual("w_start", lo * 1_000_000),
              Expressions.lessThan("w_start", hi * 1_000_000))), "company_id", "w_start", "n")) {
        Window k = new Window((String) r.getField("company_id"), instant(r.getField("w_start")).getEpochSecond());
        if (candidates.contains(k)) {
          held.computeIfAbsent(k, x -> new ArrayList<>()).add((Long) r.getField("n"));
        }
      }
    }
    List<WindowFix> out = new ArrayList<>();
    fresh.forEach((k, n) -> {
      List<Long> old = held.getOrDefault(k, List.of());
      Instant start = Instant.ofEpochSecond(k.startSecond());
      if (old.isEmpty()) {
        out.add(new WindowFix(k.companyId(), start, null, n));
      }
      old.stream().filter(o -> o == null || o.longValue() != n)
          .forEach(o -> out.add(new WindowFix(k.companyId(), start, o, n)));
    });
    out.sort(Comparator.comparing(WindowFix::wStart).thenComparing(WindowFix::companyId));
    return out;
  }

  /**
   * Final event ids whose rows in the events table are not exactly their first occurrence in the raw archive
   * (first by arrival: batch, file, ingest time, then company and amount).
   */
  List<EventFix> dedup() {
    if (now.dedup().isEmpty()) {
      return List.of();
    }
    Instant w = now.dedup().get();
    List<Record> candidates = new ArrayList<>(appendedEvents());
    candidates.addAll(between(tables.rawEvents(), now.rawEvents(), "event_ts", before.dedup(), now.dedup(),
        "event_id", "event_ts"));
    if (candidates.isEmpty()) {
      return List.of();
    }
    Instant min = candidates.stream().map(r -> instant(r.getField("event_ts"))).min(Comparator.naturalOrder())
        .orElseThrow();
    Instant max = candidates.stream().map(r -> instant(r.getField("event_ts"))).max(Comparator.naturalOrder())
        .orElseThrow();
    Expression inRange = Expressions.and(
        Expressions.greaterThanOrEqual("event_ts", micros(min.minus(RestatementAudit.DUPLICATE_SPREAD))),
        Expressions.lessThanOrEqual("event_ts", micros(max.plus(RestatementAudit.DUPLICATE_SPREAD))));
    Set<Integer> ids = new HashSet<>();
    candidates.forEach(r -> ids.add((Integer) r.getField("event_id")));
    Expression ofIds = Expressions.and(inRange, Expressions.in("event_id", ids.toArray()));
    Map<Integer, Record> first = new TreeMap<>();
    for (Record r : read(tables.rawEvents(), now.rawEvents().get(), ofIds, "event_id", "company_id", "amount",
        "event_ts", "batch_id", "source_file", "ingest_ts")) {
      first.merge((Integer) r.getField("event_id"), r, (a, b) -> FIRST_OCCURRENCE.compare(a, b) <= 0 ? a : b);
    }
    Map<Integer, Long> held = new HashMap<>();
    Map<Integer, Long> same = new HashMap<>();
    Long eventsAt = at.snapshot(tables.events());
    if (eventsAt != null) {
      for (Record r : read(tables.events(), eventsAt, ofIds, "event_id", "company_id", "amount", "event_ts")) {
        Integer id = (Integer) r.getField("event_id");
        held.merge(id, 1L, Long::sum);
        Record f = first.get(id);
        if (f != null && sameEvent(f, r)) {
          same.merge(id, 1L, Long::sum);
        }
      }
    }
    List<EventFix> out = new ArrayList<>();
    first.forEach((id, f) -> {
      Instant ts = instant(f.getField("event_ts"));
      long rows = held.getOrDefault(id, 0L);
      if (!ts.isAfter(w) && (rows != 1 || same.getOrDefault(id, 0L) != 1)) {
        out.add(new EventFix(id, (String) f.getField("company_id"), (Double) f.getField("amount"), ts, rows));
      }
    });
    return out;
  }

  /** The order that picks an event's first occurrence, as Spark's {@code ORDER BY} of the same columns. */
  static final Comparator<Record> FIRST_OCCURRENCE = Comparator
      .comparing((Record r) -> (Long) r.getField("batch_id"), SparkOrder.ascending(Comparator.<Long>naturalOrder()))
      .thenComparing(r -> (String) r.getField("source_file"), SparkOrder.ascending(SparkOrder.STRINGS))
      .thenComparing(r -> (OffsetDateTime) r.getField("ingest_ts"),
          SparkOrder.ascending(Comparator.<OffsetDateTime>naturalOrder()))
      .thenComparing(r -> (String) r.getField("company_id"), SparkOrder.ascending(SparkOrder.STRINGS))
      .thenComparing(r -> (Double) r.getField("amount"), SparkOrder.ascending(SparkOrder.DOUBLES))
      // rows alike in all of the above: any is the first; the earliest event time, so the choice is stable
      .thenComparing(r -> (OffsetDateTime) r.getField("event_ts"), Comparator.naturalOrder());

  /** The same event, column by column; a null equals a null. */
  private static boolean sameEvent(Record a, Record b) {
    return Objects.equals(a.getField("company_id"), b.getField("company_id"))
        && Objects.equals(instant(a.getField("event_ts")), instant(b.getField("event_ts")))
        && (a.getField("amount") == null ? b.getField("amount") == null
            : SparkOrder.sameDouble((Double) a.getField("amount"), (Double) b.getField("amount")));
  }

  /** Final company changes in the raw archive that the SCD2 stream never applied (normalized). */
  List<LateChange> companyChanges() {
    if (now.scd2().isEmpty()) {
      return List.of();
    }
    Instant w = now.scd2().get();
    String[] columns = {"company_id", "name", "tier", "change_ts", "deleted"};
    List<Record> rows = new ArrayList<>(appended(tables.rawCompanyChanges(), before.rawChanges(), now.rawChanges(),
        columns));
    rows.addAll(between(tables.rawCompanyChanges(), now.rawChanges(), "change_ts", before.scd2(), now.scd2(),
        columns));
    Set<LateChange> late = new LinkedHashSet<>();
    for (Record r : rows) {
      LateChange c = normalized(r);
      if (!c.changeTs().isAfter(w)) {
        late.add(c);
      }
    }
    if (late.isEmpty()) {
      return List.of();
    }
    TableName log = tables.companyChanges();
    Long logAt = at.snapshot(log);
    if (logAt != null) {
      Object[] companies = late.stream().map(LateChange::companyId).filter(Objects::nonNull).distinct().toArray();
      for (Record r : read(log, logAt, Expressions.in("company_id", companies), columns)) {
        // as stored (the stream logs normalized changes); a null equals a null
        late.remove(new LateChange((String) r.getField("company_id"), (String) r.getField("name"),
            (String) r.getField("tier"), instant(r.getField("change_ts")), Boolean.TRUE.equals(r.getField("deleted"))));
      }
    }
    return late.stream().sorted(Comparator.comparing(LateChange::companyId).thenComparing(LateChange::changeTs))
        .toList();
  }

  private static LateChange normalized(Record r) {
    boolean deleted = Boolean.TRUE.equals(r.getField("deleted"));
    return new LateChange((String) r.getField("company_id"), deleted ? null : (String) r.getField("name"),
        deleted ? null : (String) r.getField("tier"), instant(r.getField("change_ts")), deleted);
  }

  static Instant instant(Object v) {
    return ((OffsetDateTime) v).toInstant();
  }

  static long micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000);
  }
}
