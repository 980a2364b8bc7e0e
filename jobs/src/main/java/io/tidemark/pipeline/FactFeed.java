package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.FeedSchema;
import java.time.Duration;
import java.util.List;

/**
 * A fact feed: records of something that happened, each identified by its key, at its event time. Its raw stream
 * archives every valid line; its dedup stream keeps one row per key within the dedup watermark
 * ({@code dropDuplicatesWithinWatermark}); each of its windowed aggregates appends a window once its watermark has
 * passed the window's end.
 *
 * @param dedupWatermark how long a key is remembered by the dedup stream
 * @param expectations what its rows and arrivals are held to ({@link Expectation})
 */
public record FactFeed(FeedSchema schema, Stage raw, Stage dedup, Duration dedupWatermark,
                       List<Aggregate> aggregates, List<Expectation> expectations) implements Feed {
  public FactFeed {
    aggregates = List.copyOf(aggregates);
    expectations = List.copyOf(expectations);
  }

  /** The aggregate of that name, or null. */
  public Aggregate aggregate(String name) {
    return aggregates.stream().filter(a -> a.name().equals(name)).findFirst().orElse(null);
  }

  /** The deduplicated table. */
  public TableName dedupTable() {
    return dedup.table();
  }
}
