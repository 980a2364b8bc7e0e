package io.tidemark.restate;

import io.tidemark.lakehouse.CommitKeys;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How far the restatement got, kept in the properties of its published Nessie commit: the raw archives'
 * snapshots it read, and the streams' watermarks it used. The next run reads only what came after.
 */
record Marks(Optional<Long> rawEvents, Optional<Long> rawChanges, Optional<Instant> counts, Optional<Instant> dedup,
             Optional<Instant> scd2) {
  static final String RAW_EVENTS = CommitKeys.RAW_EVENTS_SNAPSHOT;
  static final String RAW_CHANGES = CommitKeys.RAW_CHANGES_SNAPSHOT;
  static final String COUNTS = CommitKeys.COUNTS_WATERMARK;
  static final String DEDUP = CommitKeys.DEDUP_WATERMARK;
  static final String SCD2 = CommitKeys.SCD2_WATERMARK;

  static Marks none() {
    return new Marks(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  static Marks of(Map<String, String> props) {
    return new Marks(longOf(props.get(RAW_EVENTS)), longOf(props.get(RAW_CHANGES)), instantOf(props.get(COUNTS)),
        instantOf(props.get(DEDUP)), instantOf(props.get(SCD2)));
  }

  Map<String, String> properties() {
    Map<String, String> m = new LinkedHashMap<>();
    rawEvents.ifPresent(v -> m.put(RAW_EVENTS, v.toString()));
    rawChanges.ifPresent(v -> m.put(RAW_CHANGES, v.toString()));
    counts.ifPresent(v -> m.put(COUNTS, v.toString()));
    dedup.ifPresent(v -> m.put(DEDUP, v.toString()));
    scd2.ifPresent(v -> m.put(SCD2, v.toString()));
    return m;
  }

  private static Optional<Long> longOf(String s) {
    return s == null ? Optional.empty() : Optional.of(Long.parseLong(s));
  }

  private static Optional<Instant> instantOf(String s) {
    return s == null ? Optional.empty() : Optional.of(Instant.parse(s));
  }
}
