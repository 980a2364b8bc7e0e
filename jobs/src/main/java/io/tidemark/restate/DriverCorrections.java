package io.tidemark.restate;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionRules.RawEvent;
import io.tidemark.core.CorrectionRules.WindowKey;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.Event;
import io.tidemark.core.Events;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.Schema;
import io.tidemark.core.Times;
import io.tidemark.core.WindowCounts;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The corrections worked out on the driver, from the tables read with Iceberg's readers, for the few rows a
 * restatement of a few late events reads. A read past the budget stops with {@link DriverReads.TooManyRows}: the plan
 * hands the work to {@link SparkCorrections} then.
 */
final class DriverCorrections implements Corrections {
  private final PinnedTables at;
  private final Tables tables;
  private final Windows windows;
  private final long budget;
  private final CorrectionPlan.Promoted promoted;

  /** {@code at}: the tables as the plan reads them; {@code budget}: rows it may read before Spark takes over. */
  DriverCorrections(PinnedTables at, Tables tables, Duration window, long budget) {
    this.at = at;
    this.tables = tables;
    this.windows = new Windows(window);
    this.budget = budget;
    this.promoted = PlannedCorrections.promoted(at, tables);
  }

  @Override
  public CorrectionSet between(Marks before, Marks now) {
    return new Reading(before, now).corrections();
  }

  /** One plan's reads, counted against the budget; the raw events appended since the last run read once. */
  private final class Reading {
    private final Marks before;
    private final Marks now;
    private long left = budget;
    private List<Fields> appendedEvents;

    Reading(Marks before, Marks now) {
      this.before = before;
      this.now = now;
    }

    CorrectionSet corrections() {
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
    private List<Fields> read(TableName t, long snapshot, Expression filter, Schema columns) {
      List<Fields> rows = DriverReads.read(at.get(t), snapshot, filter, columns.names(), false, left).stream()
          .map(IcebergFields::of).toList();
      left -= rows.size();
      return rows;
    }

    private List<Fields> appendedEvents() {
      if (appendedEvents == null) {
        appendedEvents = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents(), Events.FEED.columns());
      }
      return appendedEvents;
    }

    /** The raw rows the archive got after {@code from}, up to {@code to}; all of them without a start. */
    private List<Fields> appended(TableName raw, Optional<Long> from, Optional<Long> to, Schema columns) {
      if (to.isEmpty() || from.equals(to)) {
        return List.of();
      }
      if (from.isEmpty()) {
        return read(raw, to.get(), Expressions.alwaysTrue(), columns);
      }
      List<Fields> rows = DriverReads.appended(at.get(raw), from.get(), to.get(), Expressions.alwaysTrue(),
          columns.names(), left).stream().map(IcebergFields::of).toList();
      left -= rows.size();
      return rows;
    }

    /** Raw rows, as of this run's snapshot, with {@code time} in (after, upTo]; none without an upper bound. */
    private List<Fields> between(TableName raw, Optional<Long> snapshot, String time, Optional<Instant> after,
                                 Optional<Instant> upTo, Schema columns) {
      if (snapshot.isEmpty() || upTo.isEmpty() || after.isPresent() && !upTo.get().isAfter(after.get())) {
        return List.of();
      }
      Expression range = Expressions.lessThanOrEqual(time, Times.micros(upTo.get()));
      if (after.isPresent()) {
        range = Expressions.and(range, Expressions.greaterThan(time, Times.micros(after.get())));
      }
      return read(raw, snapshot.get(), range, columns);
    }

    /** Finalized windows whose count differs from the raw archive's ({@link CorrectionRules#windowFixes}). */
    List<CorrectionSet.WindowFix> counts() {
      if (now.counts().isEmpty()) {
        return List.of();
      }
      Instant w = now.counts().get();
      String eventTs = Events.EVENT_TS.name();
      Optional<Instant> afterWindows = before.counts().map(p -> p.minus(windows.size()));
      List<Event> rows = new ArrayList<>(appendedEvents().stream().map(Event::of).toList());
      between(tables.rawEvents(), now.rawEvents(), eventTs, afterWindows, now.counts(), Events.FEED.columns())
          .forEach(r -> rows.add(Event.of(r)));
      Set<WindowKey> candidates = CorrectionRules.finalWindows(rows, windows, w);
      if (candidates.isEmpty()) {
        return List.of();
      }
      Instant lo = candidates.stream().map(WindowKey::start).min(Comparator.naturalOrder()).orElseThrow();
      Instant hi = windows.end(candidates.stream().map(WindowKey::start).max(Comparator.naturalOrder()).orElseThrow());
      Map<WindowKey, Long> fresh = new HashMap<>();
      for (Fields r : read(tables.rawEvents(), now.rawEvents().get(), Expressions.and(
          Expressions.greaterThanOrEqual(eventTs, Times.micros(lo)), Expressions.lessThan(eventTs, Times.micros(hi))),
          Events.FEED.columns())) {
        Event e = Event.of(r);
        WindowKey k = new WindowKey(e.companyId(), windows.start(e.eventTs()));
        if (candidates.contains(k)) {
          fresh.merge(k, 1L, Long::sum);
        }
      }
      Map<WindowKey, List<Long>> held = new HashMap<>();
      Set<String> companies = new HashSet<>();
      candidates.forEach(k -> companies.add(k.companyId()));
      TableName counts = tables.eventCounts();
      Long countsAt = at.snapshot(counts);
      if (countsAt != null) {
        String start = WindowCounts.W_START.name();
        for (Fields r : read(counts, countsAt, Expressions.and(
            Expressions.in(WindowCounts.COMPANY_ID.name(), companies.toArray()),
            Expressions.and(Expressions.greaterThanOrEqual(start, Times.micros(lo)),
                Expressions.lessThan(start, Times.micros(hi)))), WindowCounts.SCHEMA)) {
          WindowKey k = new WindowKey(r.string(WindowCounts.COMPANY_ID), r.instant(WindowCounts.W_START));
          if (candidates.contains(k)) {
            held.computeIfAbsent(k, x -> new ArrayList<>()).add(r.bigint(WindowCounts.N));
          }
        }
      }
      return CorrectionRules.windowFixes(fresh, held);
    }

    /** Final event ids whose rows in the events table are not exactly their first occurrence. */
    List<CorrectionSet.EventFix> dedup() {
      if (now.dedup().isEmpty()) {
        return List.of();
      }
      Instant w = now.dedup().get();
      String eventTs = Events.EVENT_TS.name();
      List<Event> candidates = new ArrayList<>(appendedEvents().stream().map(Event::of).toList());
      between(tables.rawEvents(), now.rawEvents(), eventTs, before.dedup(), now.dedup(), Events.FEED.columns())
          .forEach(r -> candidates.add(Event.of(r)));
      if (candidates.isEmpty()) {
        return List.of();
      }
      Instant min = candidates.stream().map(Event::eventTs).min(Comparator.naturalOrder()).orElseThrow();
      Instant max = candidates.stream().map(Event::eventTs).max(Comparator.naturalOrder()).orElseThrow();
      Expression inRange = Expressions.and(
          Expressions.greaterThanOrEqual(eventTs, Times.micros(min.minus(CorrectionRules.DUPLICATE_SPREAD))),
          Expressions.lessThanOrEqual(eventTs, Times.micros(max.plus(CorrectionRules.DUPLICATE_SPREAD))));
      Set<Integer> ids = new HashSet<>();
      candidates.forEach(e -> ids.add(e.eventId()));
      Expression ofIds = Expressions.and(inRange, Expressions.in(Events.EVENT_ID.name(), ids.toArray()));
      Map<Integer, RawEvent> first = new TreeMap<>();
      // the first occurrence carries the values of the fields promoted into the events, which its fix writes back
      for (Fields r : read(tables.rawEvents(), now.rawEvents().get(), ofIds, Events.FEED.columns()
          .plus(promoted.events()).plus(Ingest.BATCH_ID, Ingest.SOURCE_FILE, Ingest.INGEST_TS))) {
        RawEvent e = RawEvent.of(r, promoted.events());
        first.merge(e.event().eventId(), e, (a, b) -> CorrectionRules.FIRST_OCCURRENCE.compare(a, b) <= 0 ? a : b);
      }
      Map<Integer, List<Event>> held = new HashMap<>();
      Long eventsAt = at.snapshot(tables.events());
      if (eventsAt != null) {
        for (Fields r : read(tables.events(), eventsAt, ofIds, Events.FEED.columns())) {
          Event e = Event.of(r);
          held.computeIfAbsent(e.eventId(), k -> new ArrayList<>()).add(e);
        }
      }
      return CorrectionRules.eventFixes(first, held, w);
    }

    /** Final company changes in the raw archive that the SCD2 stream never applied (normalized). */
    List<CompanyChange> companyChanges() {
      if (now.scd2().isEmpty()) {
        return List.of();
      }
      // a promoted attribute is part of a change: the log lacks a change that differs from a logged one only in it
      List<io.tidemark.core.Column> more = promoted.changes();
      Schema columns = CompanyChanges.FEED.columns().plus(more);
      List<CompanyChange> candidates = new ArrayList<>();
      appended(tables.rawCompanyChanges(), before.rawChanges(), now.rawChanges(), columns)
          .forEach(r -> candidates.add(CompanyChange.of(r, more)));
      between(tables.rawCompanyChanges(), now.rawChanges(), CompanyChanges.CHANGE_TS.name(), before.scd2(),
          now.scd2(), columns).forEach(r -> candidates.add(CompanyChange.of(r, more)));
      List<CompanyChange> late = CorrectionRules.lateChanges(candidates, now.scd2().get(), List.of());
      if (late.isEmpty()) {
        return List.of();
      }
      TableName log = tables.companyChanges();
      Long logAt = at.snapshot(log);
      if (logAt == null) {
        return late;
      }
      Object[] companies = late.stream().map(CompanyChange::companyId).filter(Objects::nonNull).distinct().toArray();
      // as stored (the stream logs normalized changes)
      List<CompanyChange> logged = read(log, logAt, Expressions.in(CompanyChanges.COMPANY_ID.name(), companies),
          columns).stream().map(r -> CompanyChange.of(r, more)).toList();
      return CorrectionRules.lateChanges(late, now.scd2().get(), logged);
    }
  }
}
