package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * What one attempt of a restatement corrects, worked out once by its plan (on the driver or in Spark, by the rules of
 * {@link CorrectionRules}) and kept on its branch: per windowed aggregate, the finalized windows to recompute or
 * insert; per fact feed, the keys whose rows in the deduplicated table are not exactly their first occurrence; per
 * dimension, the late changes the SCD2 stream never applied. Immutable, in a stable order whatever order its rows were
 * read in.
 */
public record CorrectionSet(List<WindowFix> windows, List<RecordFix> records, List<ChangeFix> changes) {
  public static final Comparator<WindowFix> WINDOW_ORDER = Comparator.comparing(WindowFix::aggregate)
      .thenComparing(WindowFix::start).thenComparing(WindowFix::group, SqlOrder.valuesAscendingNullsFirst())
      .thenComparing(w -> w.old() == null ? List.of() : w.old(), SqlOrder.valuesAscendingNullsFirst());
  public static final Comparator<RecordFix> RECORD_ORDER = Comparator.comparing(RecordFix::feed)
      .thenComparing(RecordFix::key, SqlOrder.valuesAscendingNullsFirst());
  public static final Comparator<ChangeFix> CHANGE_ORDER = Comparator.comparing(ChangeFix::dimension)
      .thenComparing(c -> c.change().key(), SqlOrder.valuesAscendingNullsFirst())
      .thenComparing(c -> c.change().at());

  public CorrectionSet {
    windows = windows.stream().sorted(WINDOW_ORDER).toList();
    records = records.stream().sorted(RECORD_ORDER).toList();
    changes = changes.stream().sorted(CHANGE_ORDER).toList();
  }

  /**
   * A finalized window of an aggregate whose measures differ from the raw archive's.
   *
   * @param aggregate the aggregate's name
   * @param old the measures a row of the table held; null: the stream never wrote the window
   * @param fresh the measures the raw archive gives
   */
  public record WindowFix(String aggregate, List<Object> group, Instant start, List<Object> old,
                          List<Object> fresh) {
    public WindowFix {
      group = Collections.unmodifiableList(new ArrayList<>(group));
      old = old == null ? null : Collections.unmodifiableList(new ArrayList<>(old));
      fresh = Collections.unmodifiableList(new ArrayList<>(fresh));
    }

    public Aggregation.Key key() {
      return new Aggregation.Key(group, start);
    }
  }

  /**
   * A key of a fact feed and its first occurrence in the raw archive.
   *
   * @param feed the feed's name
   * @param key the key's values
   * @param first the first occurrence's values, in the order of the feed's columns (promoted ones too)
   * @param oldRows how many rows the deduplicated table held for the key (0: the dedup dropped it as late; more than
   *     1: repeats got through)
   */
  public record RecordFix(String feed, List<Object> key, List<Object> first, long oldRows) {
    public RecordFix {
      key = Collections.unmodifiableList(new ArrayList<>(key));
      first = Collections.unmodifiableList(new ArrayList<>(first));
    }
  }

  /** A late change of a dimension (normalized) that its change log lacks. */
  public record ChangeFix(String dimension, Change change) {}

  public static CorrectionSet empty() {
    return new CorrectionSet(List.of(), List.of(), List.of());
  }

  public boolean isEmpty() {
    return windows.isEmpty() && records.isEmpty() && changes.isEmpty();
  }

  public List<WindowFix> windowsOf(String aggregate) {
    return windows.stream().filter(w -> w.aggregate().equals(aggregate)).toList();
  }

  public List<RecordFix> recordsOf(String feed) {
    return records.stream().filter(r -> r.feed().equals(feed)).toList();
  }

  public List<Change> changesOf(String dimension) {
    return changes.stream().filter(c -> c.dimension().equals(dimension)).map(ChangeFix::change).toList();
  }

  /** The keys of a dimension whose history the late changes rebuild. */
  public List<List<Object>> keysOf(String dimension) {
    return changesOf(dimension).stream().map(Change::key).distinct()
        .sorted(SqlOrder.valuesAscendingNullsFirst()).toList();
  }
}
