package io.tidemark.core;

import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plan's corrections as rows of the restatement plan table ({@link RestatementRecords#PLAN}), one per correction,
 * each of one kind, and back: what will be corrected is decided once, kept where a person can read it before anything
 * is written, and read back by the stages that write and audit it.
 */
public final class CorrectionPlan {
  public static final String WINDOW = "window";
  public static final String EVENT = "event";
  public static final String CHANGE = "change";

  private CorrectionPlan() {}

  /** The rows of an attempt's corrections, each in the order of the plan's columns. */
  public static List<List<Object>> rows(CorrectionSet c, String runId, String branch, int attempt) {
    List<List<Object>> rows = new ArrayList<>();
    for (WindowFix w : c.windows()) {
      rows.add(Arrays.asList(runId, branch, attempt, WINDOW, w.companyId(), w.wStart(), w.oldN(), w.newN(),
          null, null, null, null, null, null, null, null));
    }
    for (EventFix e : c.events()) {
      rows.add(Arrays.asList(runId, branch, attempt, EVENT, e.companyId(), null, null, null, e.eventId(),
          e.amount(), e.eventTs(), e.oldRows(), null, null, null, null));
    }
    for (CompanyChange ch : c.changes()) {
      rows.add(Arrays.asList(runId, branch, attempt, CHANGE, ch.companyId(), null, null, null, null, null, null,
          null, ch.name(), ch.tier(), ch.changeTs(), ch.deleted()));
    }
    return rows;
  }

  /** The corrections of rows read back (of one run and attempt), in a stable order whatever order they came in. */
  public static CorrectionSet read(Iterable<Fields> rows) {
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
            r.instant(Events.EVENT_TS), r.bigint(RestatementRecords.OLD_ROWS)));
        case CHANGE -> changes.add(new CompanyChange(company, r.string(CompanyChanges.NAME),
            r.string(CompanyChanges.TIER), r.instant(CompanyChanges.CHANGE_TS), r.bool(CompanyChanges.DELETED)));
        default -> throw new IllegalStateException("unknown correction kind " + kind);
      }
    }
    return new CorrectionSet(windows, events, changes);
  }
}
