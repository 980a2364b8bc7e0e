package io.tidemark.core;

import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a restatement corrects, as rules over rows: the raw archives hold every valid line as it arrived, the streams'
 * tables what their watermarks let through; a correction makes a final part of a table what the raw archive says it
 * should be. The plan applies these on the driver, or in Spark for large inputs (tested equal to them).
 */
public final class CorrectionRules {
  /** How far apart in event time repeats of one event id may be: the restatement reads that far around its events. */
  public static final Duration DUPLICATE_SPREAD = Duration.ofDays(1);

  private CorrectionRules() {}

  /** A window as the counts table keys it: the company and the window's start. */
  public record WindowKey(String companyId, Instant start) {}

  /**
   * The windows that {@code events} (company and event time) fall in and that are final under {@code watermark}: the
   * ones a late event may have changed. A window of events without a company is left alone, as a join on the company
   * leaves it.
   */
  public static Set<WindowKey> finalWindows(Collection<Event> events, Windows windows, Instant watermark) {
    Set<WindowKey> out = new LinkedHashSet<>();
    for (Event e : events) {
      Instant start = windows.start(e.eventTs());
      if (e.companyId() != null && windows.isFinal(start, watermark)) {
        out.add(new WindowKey(e.companyId(), start));
      }
    }
    return out;
  }

  /**
   * The windows to correct: each window's count in the raw archive ({@code fresh}, every valid event line, repeats
   * included, as the stream counts them) against the counts the table holds for it ({@code held}: none when the
   * stream never wrote it, several when it wrote it more than once): an insert when it holds none, a recount of each
   * count that differs.
   */
  public static List<WindowFix> windowFixes(Map<WindowKey, Long> fresh, Map<WindowKey, List<Long>> held) {
    List<WindowFix> out = new ArrayList<>();
    fresh.forEach((k, n) -> {
      List<Long> old = held.getOrDefault(k, List.of());
      if (old.isEmpty()) {
        out.add(new WindowFix(k.companyId(), k.start(), null, n));
      }
      old.stream().filter(o -> o == null || o.longValue() != n)
          .forEach(o -> out.add(new WindowFix(k.companyId(), k.start(), o, n)));
    });
    out.sort(CorrectionSet.WINDOW_ORDER);
    return out;
  }

  /** An event as the raw archive holds it: where and when it came in decides which occurrence is the first. */
  public record RawEvent(Event event, Long batchId, String sourceFile, Instant ingestTs, List<Object> more) {
    /** A raw row of the statically declared feed (no promoted field). */
    public RawEvent(Event event, Long batchId, String sourceFile, Instant ingestTs) {
      this(event, batchId, sourceFile, ingestTs, List.of());
    }

    public static RawEvent of(Fields f) {
      return of(f, List.of());
    }

    /** A raw row with the values of the fields promoted into the feed ({@code promoted}, in order). */
    public static RawEvent of(Fields f, List<Column> promoted) {
      return new RawEvent(Event.of(f), f.bigint(Ingest.BATCH_ID), f.string(Ingest.SOURCE_FILE),
          f.instant(Ingest.INGEST_TS), f.values(promoted));
    }
  }

  /**
   * The order that picks an event's first occurrence, as Spark's {@code ORDER BY batch_id, source_file, ingest_ts,
   * company_id, amount, event_ts} (nulls first): by arrival, then by content so that the choice is stable.
   */
  public static final Comparator<RawEvent> FIRST_OCCURRENCE = Comparator
      .comparing(RawEvent::batchId, SqlOrder.ascending(Comparator.<Long>naturalOrder()))
      .thenComparing(RawEvent::sourceFile, SqlOrder.ascending(SqlOrder.STRINGS))
      .thenComparing(RawEvent::ingestTs, SqlOrder.ascending(Comparator.<Instant>naturalOrder()))
      .thenComparing(r -> r.event().companyId(), SqlOrder.ascending(SqlOrder.STRINGS))
      .thenComparing(r -> r.event().amount(), SqlOrder.ascending(SqlOrder.DOUBLES))
      // rows alike in all of the above: any is the first; the earliest event time, so the choice is stable
      .thenComparing(r -> r.event().eventTs(), Comparator.naturalOrder());

  /**
   * The event ids to correct: those whose first occurrence ({@code first}, by {@link #FIRST_OCCURRENCE}) is final under
   * {@code watermark} and whose rows in the events table ({@code held}) are not exactly that occurrence, once.
   */
  public static List<EventFix> eventFixes(Map<Integer, RawEvent> first, Map<Integer, List<Event>> held,
                                          Instant watermark) {
    List<EventFix> out = new ArrayList<>();
    first.forEach((id, f) -> {
      Event e = f.event();
      List<Event> rows = held.getOrDefault(id, List.of());
      long same = rows.stream().filter(r -> r.sameAs(e)).count();
      if (!e.eventTs().isAfter(watermark) && (rows.size() != 1 || same != 1)) {
        out.add(new EventFix(id, e.companyId(), e.amount(), e.eventTs(), rows.size(), f.more()));
      }
    });
    out.sort(CorrectionSet.EVENT_ORDER);
    return out;
  }

  /**
   * The late company changes to apply: those of {@code candidates} (normalized) final under {@code watermark} that
   * the change log ({@code logged}) lacks, in a stable order.
   */
  public static List<CompanyChange> lateChanges(Collection<CompanyChange> candidates, Instant watermark,
                                                Collection<CompanyChange> logged) {
    Set<CompanyChange> late = new LinkedHashSet<>();
    for (CompanyChange c : candidates) {
      if (!c.changeTs().isAfter(watermark)) {
        late.add(c);
      }
    }
    late.removeAll(Set.copyOf(logged));
    return late.stream().sorted(CorrectionSet.CHANGE_ORDER).toList();
  }
}
