package io.tidemark.core;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The restatement log's rows ({@link RestatementRecords#LOG}): one per correction a run made, saying what it changed:
 * where (table and key), the old value and the new one, each as text (values joined by {@code |}, times to the second
 * in UTC).
 */
public final class CorrectionLog {
  public static final String WINDOW_INSERT = "window_insert";
  public static final String WINDOW_RECOUNT = "window_recount";
  public static final String EVENT_ADDED = "event_added";
  public static final String DUPLICATES_REMOVED = "duplicates_removed";
  public static final String EVENT_REPLACED = "event_replaced";
  public static final String LATE_CHANGE = "scd2_late_change";

  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  private CorrectionLog() {}

  /** A time as the log's keys and values write it, to the second in UTC. */
  public static String seconds(Instant t) {
    return SECONDS.format(t);
  }

  /**
   * The rows, each in the order of {@link RestatementRecords#LOG}'s columns; {@code tables}: the table of each
   * aggregate, fact feed (its deduplicated table) and dimension, by name.
   */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, Shapes shapes,
                                        Map<String, String> tables, Instant at) {
    List<List<Object>> rows = new ArrayList<>();
    for (CorrectionSet.WindowFix w : c.windows()) {
      rows.add(row(runId, branch, tables.get(w.aggregate()), w.old() == null ? WINDOW_INSERT : WINDOW_RECOUNT,
          joined("|", texts(w.key().values())), w.old() == null ? null : joined("|", texts(w.old())),
          joined("|", texts(w.fresh())), at));
    }
    for (CorrectionSet.RecordFix r : c.records()) {
      FeedSchema f = shapes.fact(r.feed());
      List<Object> rest = new ArrayList<>();
      for (Column col : f.columns().columns()) {
        if (!f.key().contains(col)) {
          rest.add(r.first().get(f.columns().index(col)));
        }
      }
      rows.add(row(runId, branch, tables.get(r.feed()), r.oldRows() == 0 ? EVENT_ADDED
          : r.oldRows() > 1 ? DUPLICATES_REMOVED : EVENT_REPLACED, joined("|", texts(r.key())),
          r.oldRows() + " row(s)", joined("|", texts(rest)), at));
    }
    for (CorrectionSet.ChangeFix ch : c.changes()) {
      Change x = ch.change();
      rows.add(row(runId, branch, tables.get(ch.dimension()), LATE_CHANGE,
          joined("|", texts(x.key())) + "@" + seconds(x.at()), null,
          x.deleted() ? "deleted" : joined("|", texts(x.attributes())), at));
    }
    return rows;
  }

  /** Values as the log writes them: times to the second, nulls left for {@link #joined} to skip. */
  public static String[] texts(List<Object> values) {
    return values.stream().map(v -> v == null ? null : v instanceof Instant t ? seconds(t)
        : v instanceof java.math.BigDecimal d ? d.toPlainString() : v.toString()).toArray(String[]::new);
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  /** The values that are there, joined (as SQL's concat_ws, which skips nulls). */
  public static String joined(String separator, String... values) {
    return Stream.of(values).filter(Objects::nonNull).collect(Collectors.joining(separator));
  }
}
