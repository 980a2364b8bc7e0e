package io.tidemark.restate;

import io.tidemark.core.CommitKeys;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How far the restatement got, kept in the properties of its merge commit: the raw archives' snapshots it read (by
 * table) and the streams' watermarks it used (by stream). The next run reads only what came after.
 */
record Marks(Map<String, Long> snapshots, Map<String, Instant> watermarks) {
  Marks {
    snapshots = java.util.Collections.unmodifiableMap(new TreeMap<>(snapshots));
    watermarks = java.util.Collections.unmodifiableMap(new TreeMap<>(watermarks));
  }

  static Marks none() {
    return new Marks(Map.of(), Map.of());
  }

  Optional<Long> snapshot(String rawTable) {
    return Optional.ofNullable(snapshots.get(rawTable));
  }

  Optional<Instant> watermark(String stream) {
    return Optional.ofNullable(watermarks.get(stream));
  }

  static Marks of(Map<String, String> props) {
    Map<String, Long> snapshots = new LinkedHashMap<>();
    Map<String, Instant> watermarks = new LinkedHashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(CommitKeys.MARK_SNAPSHOT)) {
        snapshots.put(k.substring(CommitKeys.MARK_SNAPSHOT.length()), Long.parseLong(v));
      } else if (k.startsWith(CommitKeys.MARK_WATERMARK)) {
        watermarks.put(k.substring(CommitKeys.MARK_WATERMARK.length()), Instant.parse(v));
      }
    });
    return new Marks(snapshots, watermarks);
  }

  Map<String, String> properties() {
    Map<String, String> m = new LinkedHashMap<>();
    snapshots.forEach((t, v) -> m.put(CommitKeys.MARK_SNAPSHOT + t, v.toString()));
    watermarks.forEach((s, v) -> m.put(CommitKeys.MARK_WATERMARK + s, v.toString()));
    return m;
  }
}
