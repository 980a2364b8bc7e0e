package io.tidemark.publish;

import io.tidemark.lakehouse.Schemas;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The changes that rebuild the SCD2 history of the companies an arrival touched without their whole change log: the
 * published versions that start before the company's earliest staged change, as changes, and the logged changes from
 * that time on. A change sets a company's state from its time until the next change, so the staged changes alter the
 * history from their earliest on and nothing before it; the published dimension was checked when it was published
 * (it is the history of the published change log), so its versions before that time are what the log says, while the
 * logged changes from that time on are all read, the repeats the versions merged away included (a late change between
 * two alike states splits them again). The history rebuilt from these changes equals the one rebuilt from every
 * change; reading them costs what the arrival reaches back to, not the history: the change log's files are bounded by
 * company (bucketed) and change time, and files written before the earliest change are not opened.
 */
final class Scd2Since {
  /** Companies past which a per-company filter is no longer worth evaluating row by row. */
  private static final int PER_COMPANY = 200;

  private static final int COMPANY = Schemas.COMPANY_CHANGE.fieldIndex("company_id");
  private static final int CHANGE_TS = Schemas.COMPANY_CHANGE.fieldIndex("change_ts");
  private static final int V_COMPANY = Schemas.COMPANY_VERSION.fieldIndex("company_id");
  private static final int NAME = Schemas.COMPANY_VERSION.fieldIndex("name");
  private static final int TIER = Schemas.COMPANY_VERSION.fieldIndex("tier");
  private static final int VALID_FROM = Schemas.COMPANY_VERSION.fieldIndex("valid_from");
  private static final int VALID_TO = Schemas.COMPANY_VERSION.fieldIndex("valid_to");

  private Scd2Since() {}

  /** Each company's earliest change time (epoch microseconds) among {@code changes} ({@link Schemas#COMPANY_CHANGE}). */
  static Map<String, Long> earliest(List<Row> changes) {
    Map<String, Long> out = new HashMap<>();
    for (Row c : changes) {
      out.merge(c.getString(COMPANY), micros((Timestamp) c.get(CHANGE_TS)), Math::min);
    }
    return out;
  }

  /** The logged changes of each company from its earliest on (rows still go through {@link #isFrom}). */
  static Expression logFilter(Map<String, Long> from) {
    if (from.size() > PER_COMPANY) {
      Expression companies = Expressions.in("company_id", from.keySet().toArray());
      long earliest = from.values().stream().min(Long::compare).orElseThrow();
      return earliest == Long.MIN_VALUE ? companies
          : Expressions.and(companies, Expressions.greaterThanOrEqual("change_ts", earliest));
    }
    Expression any = Expressions.alwaysFalse();
    for (Map.Entry<String, Long> e : from.entrySet()) {
      Expression company = Expressions.equal("company_id", e.getKey());
      any = Expressions.or(any, e.getValue() == Long.MIN_VALUE ? company
          : Expressions.and(company, Expressions.greaterThanOrEqual("change_ts", e.getValue())));
    }
    return any;
  }

  /** Whether a logged change is at or after its company's earliest staged change. */
  static boolean isFrom(Row change, Map<String, Long> from) {
    Long t = from.get(change.getString(COMPANY));
    return t != null && (t == Long.MIN_VALUE || micros((Timestamp) change.get(CHANGE_TS)) >= t);
  }

  /**
   * The published versions ({@link Schemas#COMPANY_VERSION}) of each company that start before its earliest staged
   * change, as changes ({@link Schemas#COMPANY_CHANGE}): the version's state at its start, and a delete at its end
   * when it ends before that time and no version follows at once (a delete left the gap). A version still valid at
   * that time gets no end: the changes from that time on say where it ends.
   */
  static List<Row> asChanges(List<Row> published, Map<String, Long> from) {
    Set<List<Object>> starts = new HashSet<>();
    for (Row v : published) {
      starts.add(List.of(v.getString(V_COMPANY), micros((Timestamp) v.get(VALID_FROM))));
    }
    List<Row> out = new ArrayList<>();
    for (Row v : published) {
      String company = v.getString(V_COMPANY);
      Long t = from.get(company);
      Timestamp start = (Timestamp) v.get(VALID_FROM);
      if (t == null || micros(start) >= t) {
        continue;
      }
      out.add(RowFactory.create(company, v.get(NAME), v.get(TIER), start, false));
      Timestamp end = (Timestamp) v.get(VALID_TO);
      if (end != null && micros(end) < t && !starts.contains(List.of(company, micros(end)))) {
        out.add(RowFactory.create(company, null, null, end, true));
      }
    }
    return out;
  }

  /** A change time as epoch microseconds; none (which the history sorts first) as the earliest of all. */
  static long micros(Timestamp t) {
    if (t == null) {
      return Long.MIN_VALUE;
    }
    return Math.multiplyExact(t.toInstant().getEpochSecond(), 1_000_000L) + t.toInstant().getNano() / 1000;
  }
}
