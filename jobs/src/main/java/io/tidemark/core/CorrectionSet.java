package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * What one attempt of a restatement corrects, worked out once by its plan (on the driver or in Spark, by the rules of
 * {@link CorrectionRules}) and kept on its branch: the finalized windows to recount or insert, the event ids whose
 * rows are not exactly their first occurrence, the late company changes the SCD2 stream never applied. Immutable, in
 * a stable order whatever order its rows were read in.
 */
public record CorrectionSet(List<WindowFix> windows, List<EventFix> events, List<CompanyChange> changes) {
  public static final Comparator<WindowFix> WINDOW_ORDER = Comparator.comparing(WindowFix::wStart)
      .thenComparing(WindowFix::companyId);
  public static final Comparator<EventFix> EVENT_ORDER = Comparator.comparingInt(EventFix::eventId);
  public static final Comparator<CompanyChange> CHANGE_ORDER = Comparator.comparing(CompanyChange::companyId)
      .thenComparing(CompanyChange::changeTs);

  public CorrectionSet {
    windows = windows.stream().sorted(WINDOW_ORDER).toList();
    events = events.stream().sorted(EVENT_ORDER).toList();
    changes = changes.stream().sorted(CHANGE_ORDER).toList();
  }

  /** A finalized window whose count differs from the raw archive's; {@code oldN} null: the stream never wrote it. */
  public record WindowFix(String companyId, Instant wStart, Long oldN, long newN) {}

  /**
   * An event id and its first occurrence in the raw archive; {@code oldRows}: how many rows the events table held
   * for it (0: the dedup dropped it as late; more than 1: repeats got through); {@code more}: the first occurrence's
   * values of the fields promoted into the feed, in their order.
   */
  public record EventFix(int eventId, String companyId, Double amount, Instant eventTs, long oldRows,
                         List<Object> more) {
    public EventFix {
      more = more == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(more));
    }

    /** A fix of the statically declared feed (no promoted field). */
    public EventFix(int eventId, String companyId, Double amount, Instant eventTs, long oldRows) {
      this(eventId, companyId, amount, eventTs, oldRows, List.of());
    }

    public Event event() {
      return new Event(eventId, companyId, amount, eventTs);
    }

    /** The first occurrence's values in the order of the feed's columns: the static ones, then the promoted ones. */
    public List<Object> values() {
      List<Object> out = new ArrayList<>(event().values());
      out.addAll(more);
      return out;
    }
  }

  public static CorrectionSet empty() {
    return new CorrectionSet(List.of(), List.of(), List.of());
  }

  public boolean isEmpty() {
    return windows.isEmpty() && events.isEmpty() && changes.isEmpty();
  }

  /** The companies whose history the late changes rebuild. */
  public List<String> companies() {
    return changes.stream().map(CompanyChange::companyId).distinct().sorted().toList();
  }
}
