package io.tidemark.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
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
  /** How far apart in event time repeats of one key may be: the restatement reads that far around its records. */
  public static final Duration DUPLICATE_SPREAD = Duration.ofDays(1);

  private CorrectionRules() {}

  /**
   * The windows of {@code aggregation} that {@code rows} (of the feed) fall in and that are final under
   * {@code watermark}: the ones a late record may have changed. A window of a group with a null value is left alone,
   * as a join on the group leaves it.
   */
  public static Set<Aggregation.Key> finalWindows(Collection<Fields> rows, Aggregation aggregation, Column eventTime,
                                                  Instant watermark) {
    Set<Aggregation.Key> out = new LinkedHashSet<>();
    for (Fields r : rows) {
      Aggregation.Key k = aggregation.keyOf(r, eventTime);
      if (!k.hasNull() && aggregation.windows().isFinal(k.start(), watermark)) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * The windows to correct: each window's measures over the raw archive ({@code fresh}, every valid line, repeats
   * included, as the stream computes them) against the rows the table holds for it ({@code held}: none when the
   * stream never wrote it, several when it wrote it more than once): an insert when it holds none, a recompute of each
   * row whose measures differ ({@link Aggregation#same}).
   */
  public static List<CorrectionSet.WindowFix> windowFixes(String aggregate, Aggregation aggregation,
                                                          Map<Aggregation.Key, List<Object>> fresh,
                                                          Map<Aggregation.Key, List<List<Object>>> held) {
    List<CorrectionSet.WindowFix> out = new ArrayList<>();
    fresh.forEach((k, n) -> {
      List<List<Object>> old = held.getOrDefault(k, List.of());
      if (old.isEmpty()) {
        out.add(new CorrectionSet.WindowFix(aggregate, k.group(), k.start(), null, n));
      }
      old.stream().filter(o -> !aggregation.same(o, n))
          .forEach(o -> out.add(new CorrectionSet.WindowFix(aggregate, k.group(), k.start(), o, n)));
    });
    out.sort(CorrectionSet.WINDOW_ORDER);
    return out;
  }

  /**
   * The keys to correct: those whose first occurrence ({@code first}, by {@link Occurrence#firstFirst}) is final
   * under {@code watermark} and whose rows in the deduplicated table ({@code held}, values in the feed's order) are
   * not exactly that occurrence, once.
   */
  public static List<CorrectionSet.RecordFix> recordFixes(FeedSchema feed, Map<List<Object>, Occurrence> first,
                                                          Map<List<Object>, List<List<Object>>> held,
                                                          Instant watermark) {
    List<CorrectionSet.RecordFix> out = new ArrayList<>();
    int static_ = feed.columns().size();
    first.forEach((key, f) -> {
      List<List<Object>> rows = held.getOrDefault(key, List.of());
      long same = rows.stream().filter(r -> Occurrence.sameRecord(r.subList(0, Math.min(static_, r.size())),
          f.values().subList(0, static_))).count();
      if (!f.eventTime(feed).isAfter(watermark) && (rows.size() != 1 || same != 1)) {
        out.add(new CorrectionSet.RecordFix(feed.name(), key, f.values(), rows.size()));
      }
    });
    out.sort(CorrectionSet.RECORD_ORDER);
    return out;
  }

  /**
   * The late changes of a dimension to apply: those of {@code candidates} (normalized) final under {@code watermark}
   * that the change log ({@code logged}) lacks, in a stable order.
   */
  public static List<Change> lateChanges(Collection<Change> candidates, Instant watermark,
                                         Collection<Change> logged) {
    Set<Change> late = new LinkedHashSet<>();
    for (Change c : candidates) {
      if (!c.at().isAfter(watermark)) {
        late.add(c);
      }
    }
    late.removeAll(Set.copyOf(logged));
    return late.stream().sorted(java.util.Comparator.comparing(Change::key, SqlOrder.valuesAscendingNullsFirst())
        .thenComparing(Change::at)).toList();
  }
}
