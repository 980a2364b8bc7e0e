package io.tidemark.core;

import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A plan's corrections as rows of the restatement plan table ({@link RestatementRecords#PLAN}), one per correction,
 * each of one kind, and back: what will be corrected is decided once, kept where a person can read it before anything
 * is written, and read back by the stages that write and audit it.
 *
 * <p>The values of the fields promoted into a feed ({@code tidemark evolve}) that an event or a change carries are
 * one JSON object per row ({@link RestatementRecords#PROMOTED}), each value as its text ({@code "12.5"},
 * {@code "2026-01-01T00:00:00Z"}) so that it reads back exactly; the fields and their types are the feed's as the
 * restatement's branch declares it ({@link Promoted}).
 */
public final class CorrectionPlan {
  public static final String WINDOW = "window";
  public static final String EVENT = "event";
  public static final String CHANGE = "change";

  private CorrectionPlan() {}

  /** The fields promoted into the events and into the company changes, in the order the fixes carry their values. */
  public record Promoted(List<Column> events, List<Column> changes) {
    public static final Promoted NONE = new Promoted(List.of(), List.of());

    public Promoted {
      events = List.copyOf(events);
      changes = List.copyOf(changes);
    }

    /** The companies as declared with these promoted attributes: a change of one makes a new version. */
    public FeedSchema companies() {
      FeedSchema out = CompanyChanges.FEED;
      for (Column c : changes) {
        out = out.with(c);
      }
      return out;
    }
  }

  /** The rows of an attempt's corrections of the statically declared feeds. */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, int attempt) {
    return rows(c, runId, branch, attempt, Promoted.NONE);
  }

  /** The rows of an attempt's corrections, each in the order of the plan's columns. */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, int attempt,
                                        Promoted promoted) {
    List<List<Object>> rows = new ArrayList<>();
    for (WindowFix w : c.windows()) {
      rows.add(Arrays.asList(runId, branch, attempt, WINDOW, w.companyId(), w.wStart(), w.oldN(), w.newN(),
          null, null, null, null, null, null, null, null, null));
    }
    for (EventFix e : c.events()) {
      rows.add(Arrays.asList(runId, branch, attempt, EVENT, e.companyId(), null, null, null, e.eventId(),
          e.amount(), e.eventTs(), e.oldRows(), null, null, null, null, json(promoted.events(), e.more())));
    }
    for (CompanyChange ch : c.changes()) {
      rows.add(Arrays.asList(runId, branch, attempt, CHANGE, ch.companyId(), null, null, null, null, null, null,
          null, ch.name(), ch.tier(), ch.changeTs(), ch.deleted(), json(promoted.changes(), ch.more())));
    }
    return rows;
  }

  /** The corrections of rows of the statically declared feeds read back. */
  public static CorrectionSet read(Iterable<Fields> rows) {
    return read(rows, Promoted.NONE);
  }

  /** The corrections of rows read back (of one run and attempt), in a stable order whatever order they came in. */
  public static CorrectionSet read(Iterable<Fields> rows, Promoted promoted) {
    List<WindowFix> windows = new ArrayList<>();
    List<EventFix> events = new ArrayList<>();
    List<CompanyChange> changes = new ArrayList<>();
    for (Fields r : rows) {
      String company = r.string(Events.COMPANY_ID);
      String kind = r.string(RestatementRecords.KIND);
      switch (kind) {
        case WINDOW -> windows.add(new WindowFix(company, r.instant(WindowCounts.W_START),
            r.bigint(RestatementRecords.OLD_N), r.bigint(RestatementRecords.NEW_N)));
        case EVENT -> events.add(new EventFix(r.integer(Events.EVENT_ID), company, r.number(Events.AMOUNT),
            r.instant(Events.EVENT_TS), r.bigint(RestatementRecords.OLD_ROWS), values(promoted.events(), r)));
        case CHANGE -> changes.add(new CompanyChange(company, r.string(CompanyChanges.NAME),
            r.string(CompanyChanges.TIER), r.instant(CompanyChanges.CHANGE_TS), r.bool(CompanyChanges.DELETED),
            values(promoted.changes(), r)));
        default -> throw new IllegalStateException("unknown correction kind " + kind);
      }
    }
    return new CorrectionSet(windows, events, changes);
  }

  /** The promoted values as a JSON object of their text; null when the feed has no promoted field. */
  static String json(List<Column> fields, List<Object> values) {
    if (fields.isEmpty()) {
      return null;
    }
    if (values.size() != fields.size()) {
      throw new IllegalArgumentException("values " + values + " for the promoted fields " + fields);
    }
    List<JsonMembers.Member> members = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Object v = values.get(i);
      members.add(v == null ? new JsonMembers.Member(fields.get(i).name(), "null", JsonMembers.Kind.NULL)
          : new JsonMembers.Member(fields.get(i).name(), JsonMembers.quoted(v.toString()), JsonMembers.Kind.STRING));
    }
    return JsonMembers.object(members);
  }

  /**
   * The promoted values of a plan row, in the fields' order; a field the row does not name (planned before it was
   * promoted: the plan is read on its own branch, so that cannot happen) is an error, not a null.
   */
  static List<Object> values(List<Column> fields, Fields row) {
    if (fields.isEmpty()) {
      return List.of();
    }
    String json = row.string(RestatementRecords.PROMOTED);
    Map<String, JsonMembers.Member> members = json == null ? null : JsonMembers.of(json);
    List<Object> out = new ArrayList<>(fields.size());
    for (Column c : fields) {
      JsonMembers.Member m = members == null ? null : members.get(c.name());
      if (m == null) {
        throw new IllegalStateException("a planned correction has no value for the promoted field " + c.name()
            + " (" + RestatementRecords.PROMOTED.name() + " = " + json + "): plan it again");
      }
      out.add(m.isNull() ? null : parse(c.type(), JsonMembers.display(m)));
    }
    return out;
  }

  private static Object parse(Type type, String text) {
    return switch (type) {
      case INT -> Integer.valueOf(text);
      case BIGINT -> Long.valueOf(text);
      case DOUBLE -> Double.valueOf(text);
      case BOOLEAN -> Boolean.valueOf(text);
      case TIMESTAMP -> Instant.parse(text);
      case STRING -> text;
      default -> throw new IllegalStateException("no promoted field is " + type.sql());
    };
  }
}
