package io.tidemark.core;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * A record of a fact feed as its raw archive holds it: where and when it came in decides which occurrence of a key is
 * the first, the one the deduplicated table keeps.
 *
 * @param values the feed's columns, in order (promoted ones too)
 */
public record Occurrence(List<Object> values, Long batchId, String sourceFile, Instant ingestTs) {
  public Occurrence {
    values = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(values));
  }

  /** A raw row of {@code feed}. */
  public static Occurrence of(Fields f, FeedSchema feed) {
    return new Occurrence(f.values(feed.columns().columns()), f.bigint(Ingest.BATCH_ID),
        f.string(Ingest.SOURCE_FILE), f.instant(Ingest.INGEST_TS));
  }

  /**
   * The order that picks a key's first occurrence, as Spark's {@code ORDER BY batch_id, source_file, ingest_ts,
   * <every column of the feed but the key, in order>} (nulls first): by arrival, then by content so that the choice
   * is stable.
   */
  public static Comparator<Occurrence> firstFirst(FeedSchema feed) {
    Comparator<Occurrence> order = Comparator
        .comparing(Occurrence::batchId, SqlOrder.ascending(Comparator.<Long>naturalOrder()))
        .thenComparing(Occurrence::sourceFile, SqlOrder.ascending(SqlOrder.STRINGS))
        .thenComparing(Occurrence::ingestTs, SqlOrder.ascending(Comparator.<Instant>naturalOrder()));
    for (Column c : orderedBy(feed)) {
      int i = feed.columns().index(c);
      order = order.thenComparing(o -> o.values().get(i), SqlOrder.ascending(SqlOrder.VALUES));
    }
    return order;
  }

  /** The feed's columns that order occurrences after where they came in: all but the key, in order. */
  public static List<Column> orderedBy(FeedSchema feed) {
    return feed.columns().columns().stream().filter(c -> !feed.key().contains(c)).toList();
  }

  /** The key's values. */
  public List<Object> key(FeedSchema feed) {
    return feed.key().stream().map(c -> values.get(feed.columns().index(c))).toList();
  }

  /** The event time. */
  public Instant eventTime(FeedSchema feed) {
    return (Instant) values.get(feed.columns().index(feed.eventTime()));
  }

  /** The same record as a row of the feed's: column by column, as SQL's null-safe equality has it. */
  public static boolean sameRecord(List<Object> a, List<Object> b) {
    return SqlOrder.same(a, b);
  }
}
