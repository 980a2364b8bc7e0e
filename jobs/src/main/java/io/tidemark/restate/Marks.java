package io.tidemark.restate;

import io.tidemark.core.CommitKeys;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How far the restatement got, kept in the properties of its merge commit: the raw archives'
 * snapshots it read, and the streams' watermarks it used. The next run reads only what came after.
 */
record Marks(Optional<Long> rawEvents, Optional<Long> rawChanges, Optional<Instant> counts, Optional<Instant> dedup,
             Optional<Instant> scd2) {
  static Marks none() {
    return new Marks(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  static Marks of(Map<String, String> props) {
    return new Marks(longOf(props.get(CommitKeys.RAW_EVENTS_SNAPSHOT)),
        longOf(props.get(CommitKeys.RAW_CHANGES_SNAPSHOT)), instantOf(props.get(CommitKeys.COUNTS_WATERMARK)),
        instantOf(props.get(CommitKeys.DEDUP_WATERMARK)), instantOf(props.get(CommitKeys.SCD2_WATERMARK)));
  }

  Map<String, String> properties() {
    Map<String, String> m = new LinkedHashMap<>();
    rawEvents.ifPresent(v -> m.put(CommitKeys.RAW_EVENTS_SNAPSHOT, v.toString()));
    rawChanges.ifPresent(v -> m.put(CommitKeys.RAW_CHANGES_SNAPSHOT, v.toString()));
    counts.ifPresent(v -> m.put(CommitKeys.COUNTS_WATERMARK, v.toString()));
    dedup.ifPresent(v -> m.put(CommitKeys.DEDUP_WATERMARK, v.toString()));
    scd2.ifPresent(v -> m.put(CommitKeys.SCD2_WATERMARK, v.toString()));
    return m;
  }

  private static Optional<Long> longOf(String s) {
    return s == null ? Optional.empty() : Optional.of(Long.parseLong(s));
  }

  private static Optional<Instant> instantOf(String s) {
    return s == null ? Optional.empty() : Optional.of(Instant.parse(s));
  }
}
