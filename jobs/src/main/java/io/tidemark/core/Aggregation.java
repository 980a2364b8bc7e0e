package io.tidemark.core;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A windowed aggregate of a fact feed, as a rule: rows grouped by some columns and the event-time window they fall in
 * ({@link Windows}), and per group its measures ({@link Measure}). A window is written once, when the watermark has
 * passed its end; its rows are the group's values, the window's start, then the measures ({@link #schema}). The
 * stream computes it in Spark, the restatement recounts final windows from the raw archive by this rule (on the
 * driver, or in Spark: tested equal), and the audit again in DuckDB.
 *
 * @param windows the windows' size
 * @param groupBy the grouping columns, of the feed
 * @param windowStart the output column that holds a window's start
 * @param measures what each window keeps
 */
public record Aggregation(Windows windows, List<Column> groupBy, Column windowStart, List<Measure> measures) {
  public Aggregation {
    groupBy = List.copyOf(groupBy);
    measures = List.copyOf(measures);
    if (groupBy.isEmpty()) {
      throw new IllegalArgumentException("an aggregate groups by one column or more");
    }
    if (measures.isEmpty()) {
      throw new IllegalArgumentException("an aggregate keeps one measure or more");
    }
    if (!windowStart.type().equals(Type.TIMESTAMP)) {
      throw new IllegalArgumentException("a window's start is a timestamp");
    }
    schemaOf(groupBy, windowStart, measures); // names apart
  }

  private static Schema schemaOf(List<Column> groupBy, Column windowStart, List<Measure> measures) {
    List<Column> out = new ArrayList<>(groupBy);
    out.add(windowStart);
    measures.forEach(m -> out.add(m.column()));
    return new Schema(out);
  }

  /** The output's columns: the grouping columns, the window's start, the measures. */
  public Schema schema() {
    return schemaOf(groupBy, windowStart, measures);
  }

  /** The columns of the feed it reads: the grouping ones and those the measures take. */
  public List<Column> reads() {
    List<Column> out = new ArrayList<>(groupBy);
    measures.stream().map(Measure::of).filter(c -> c != null && !out.contains(c)).forEach(out::add);
    return out;
  }

  /** A window of one group: the grouping values and the window's start (what the output is keyed on). */
  public record Key(List<Object> group, Instant start) {
    public Key {
      group = java.util.Collections.unmodifiableList(new ArrayList<>(group));
    }

    /** Whether a grouping value is null: such a window is the stream's alone (a join on the group leaves it). */
    public boolean hasNull() {
      return group.contains(null);
    }

    /** The key's values in the output's order: the group, then the start. */
    public List<Object> values() {
      List<Object> out = new ArrayList<>(group);
      out.add(start);
      return out;
    }
  }

  /** The window a row falls in: its group and its event time's window. */
  public Key keyOf(Fields row, Column eventTime) {
    return new Key(row.values(groupBy), windows.start(row.instant(eventTime)));
  }

  /** A window's key from an output row. */
  public Key keyOfOutput(Fields row) {
    return new Key(row.values(groupBy), row.instant(windowStart));
  }

  /** A window's measures from an output row, in order. */
  public List<Object> measuresOf(Fields row) {
    List<Object> out = new ArrayList<>();
    measures.forEach(m -> out.add(row.get(m.name())));
    return out;
  }

  /** The measures of each window of {@code rows}' (the feed's valid rows), in the order windows first come. */
  public Map<Key, List<Object>> compute(Collection<Fields> rows, Column eventTime) {
    Map<Key, Object[]> acc = new LinkedHashMap<>();
    for (Fields r : rows) {
      Object[] a = acc.computeIfAbsent(keyOf(r, eventTime), k -> new Object[measures.size()]);
      for (int i = 0; i < measures.size(); i++) {
        a[i] = add(measures.get(i), a[i], r);
      }
    }
    Map<Key, List<Object>> out = new LinkedHashMap<>();
    acc.forEach((k, a) -> {
      List<Object> values = new ArrayList<>(Arrays.asList(a));
      for (int i = 0; i < measures.size(); i++) {
        if (values.get(i) == null && measures.get(i).function() == Measure.Function.COUNT) {
          values.set(i, 0L);
        }
      }
      out.put(k, values);
    });
    return out;
  }

  /** Whether two windows' measures are the same result ({@link Measure#same}). */
  public boolean same(List<Object> a, List<Object> b) {
    if (a.size() != measures.size() || b.size() != measures.size()) {
      return false;
    }
    for (int i = 0; i < measures.size(); i++) {
      if (!measures.get(i).same(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static Object add(Measure m, Object so, Fields row) {
    if (m.function() == Measure.Function.COUNT) {
      return so == null ? 1L : (Long) so + 1;
    }
    Object v = row.get(m.of());
    if (v == null) {
      return so;
    }
    return switch (m.function()) {
      case SUM -> sum(so, v);
      case MIN -> so == null || SqlOrder.VALUES.compare(v, so) < 0 ? v : so;
      case MAX -> so == null || SqlOrder.VALUES.compare(v, so) > 0 ? v : so;
      default -> throw new IllegalStateException();
    };
  }

  private static Object sum(Object so, Object v) {
    if (v instanceof Integer i) {
      return (so == null ? 0L : (Long) so) + i;
    }
    if (v instanceof Long l) {
      return (so == null ? 0L : (Long) so) + l;
    }
    if (v instanceof BigDecimal d) {
      return so == null ? d : ((BigDecimal) so).add(d);
    }
    return (so == null ? 0.0 : (Double) so) + (Double) v;
  }
}
