package io.tidemark.restate;

import java.time.Instant;
import java.util.List;

/**
 * What one attempt of a restatement corrects, worked out once by its plan and kept on its branch
 * ({@link PlannedCorrections}): the finalized windows to recount or insert, the event ids whose rows are not
 * exactly their first occurrence, the late company changes the SCD2 stream never applied.
 */
public record CorrectionSet(List<WindowFix> windows, List<EventFix> events, List<LateChange> changes) {
  /** A finalized window whose count differs from the raw archive's; {@code oldN} null: the stream never wrote it. */
  public record WindowFix(String companyId, Instant wStart, Long oldN, long newN) {}

  /**
   * An event id and its first occurrence in the raw archive; {@code oldRows}: how many rows the events table held
   * for it (0: the dedup dropped it as late; more than 1: repeats got through).
   */
  public record EventFix(int eventId, String companyId, Double amount, Instant eventTs, long oldRows) {}

  /** A late company change (normalized: a delete carries no attributes). */
  public record LateChange(String companyId, String name, String tier, Instant changeTs, boolean deleted) {}

  static CorrectionSet empty() {
    return new CorrectionSet(List.of(), List.of(), List.of());
  }

  public boolean isEmpty() {
    return windows.isEmpty() && events.isEmpty() && changes.isEmpty();
  }

  /** The companies whose history the late changes rebuild. */
  List<String> companies() {
    return changes.stream().map(LateChange::companyId).distinct().sorted().toList();
  }
}
