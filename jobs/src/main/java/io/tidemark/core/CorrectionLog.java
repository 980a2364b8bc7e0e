package io.tidemark.core;

import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The restatement log's rows ({@link RestatementRecords#LOG}): one per correction a run made, saying what it changed:
 * where (table and key), the old value and the new one.
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

  /** The names of the tables the corrections are made in. */
  public record Targets(String counts, String events, String companies) {}

  private CorrectionLog() {}

  /** A time as the log's keys and values write it, to the second in UTC. */
  public static String seconds(Instant t) {
    return SECONDS.format(t);
  }

  /** The rows, each in the order of {@link RestatementRecords#LOG}'s columns. */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, Targets targets, Instant at) {
    List<List<Object>> rows = new ArrayList<>();
    for (WindowFix w : c.windows()) {
      rows.add(row(runId, branch, targets.counts(), w.oldN() == null ? WINDOW_INSERT : WINDOW_RECOUNT,
          joined("|", w.companyId(), seconds(w.wStart())), w.oldN() == null ? null : w.oldN().toString(),
          Long.toString(w.newN()), at));
    }
    for (EventFix e : c.events()) {
      rows.add(row(runId, branch, targets.events(), e.oldRows() == 0 ? EVENT_ADDED
              : e.oldRows() > 1 ? DUPLICATES_REMOVED : EVENT_REPLACED, Integer.toString(e.eventId()),
          e.oldRows() + " row(s)", joined("|", e.companyId(), e.amount() == null ? null : e.amount().toString(),
              seconds(e.eventTs())), at));
    }
    for (CompanyChange ch : c.changes()) {
      rows.add(row(runId, branch, targets.companies(), LATE_CHANGE, joined("@", ch.companyId(),
          seconds(ch.changeTs())), null, ch.deleted() ? "deleted" : joined("|", ch.name(), ch.tier()), at));
    }
    return rows;
  }

  private static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  /** The values that are there, joined (as SQL's concat_ws, which skips nulls). */
  public static String joined(String separator, String... values) {
    return Stream.of(values).filter(Objects::nonNull).collect(Collectors.joining(separator));
  }
}
