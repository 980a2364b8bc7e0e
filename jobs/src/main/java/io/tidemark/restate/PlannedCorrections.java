package io.tidemark.restate;

import io.tidemark.lakehouse.DriverReads;
import io.tidemark.lakehouse.DriverWrites;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.restate.CorrectionSet.EventFix;
import io.tidemark.restate.CorrectionSet.LateChange;
import io.tidemark.restate.CorrectionSet.WindowFix;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * A plan's corrections as rows of the restatement plan table, written on the run's branch by the plan stage and read
 * back by the write and the audit at the snapshot the plan recorded: what will be corrected is decided once, and
 * a person can read it before anything is written ({@code SELECT * FROM audit.restatement_plan@restate-<id>}).
 */
final class PlannedCorrections {
  static final String WINDOW = "window";
  static final String EVENT = "event";
  static final String CHANGE = "change";

  private PlannedCorrections() {}

  /** Appends the corrections in one commit carrying {@code summary}; the snapshot id of that commit. */
  static long write(Table table, String runId, String branch, int attempt, CorrectionSet c,
                    Map<String, String> summary) {
    List<Row> rows = new ArrayList<>();
    for (WindowFix w : c.windows()) {
      rows.add(RowFactory.create(runId, branch, attempt, WINDOW, w.companyId(), ts(w.wStart()), w.oldN(), w.newN(),
          null, null, null, null, null, null, null, null));
    }
    for (EventFix e : c.events()) {
      rows.add(RowFactory.create(runId, branch, attempt, EVENT, e.companyId(), null, null, null, e.eventId(),
          e.amount(), ts(e.eventTs()), e.oldRows(), null, null, null, null));
    }
    for (LateChange ch : c.changes()) {
      rows.add(RowFactory.create(runId, branch, attempt, CHANGE, ch.companyId(), null, null, null, null, null, null,
          null, ch.name(), ch.tier(), ts(ch.changeTs()), ch.deleted()));
    }
    DriverWrites.append(table, Schemas.PLANNED_CORRECTION, rows, summary);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** The corrections an attempt of a run planned, as the table held them at {@code snapshot}. */
  static CorrectionSet read(Table table, long snapshot, String runId, int attempt) {
    List<WindowFix> windows = new ArrayList<>();
    List<EventFix> events = new ArrayList<>();
    List<LateChange> changes = new ArrayList<>();
    for (Record r : DriverReads.read(table, snapshot, Expressions.and(Expressions.equal("run_id", runId),
        Expressions.equal("attempt", attempt)), List.of(Schemas.PLANNED_CORRECTION.fieldNames()), false,
        Long.MAX_VALUE)) {
      String company = (String) r.getField("company_id");
      switch ((String) r.getField("kind")) {
        case WINDOW -> windows.add(new WindowFix(company, instant(r.getField("w_start")), (Long) r.getField("old_n"),
            (Long) r.getField("new_n")));
        case EVENT -> events.add(new EventFix((Integer) r.getField("event_id"), company,
            (Double) r.getField("amount"), instant(r.getField("event_ts")), (Long) r.getField("old_rows")));
        case CHANGE -> changes.add(new LateChange(company, (String) r.getField("name"), (String) r.getField("tier"),
            instant(r.getField("change_ts")), (Boolean) r.getField("deleted")));
        default -> throw new IllegalStateException("unknown correction kind in " + table.name() + ": " + r);
      }
    }
    // in a stable order, whatever order the files were read in
    windows.sort(Comparator.comparing(WindowFix::wStart).thenComparing(WindowFix::companyId));
    events.sort(Comparator.comparingInt(EventFix::eventId));
    changes.sort(Comparator.comparing(LateChange::companyId).thenComparing(LateChange::changeTs));
    return new CorrectionSet(List.copyOf(windows), List.copyOf(events), List.copyOf(changes));
  }

  private static Timestamp ts(Instant i) {
    return i == null ? null : Timestamp.from(i);
  }

  private static Instant instant(Object v) {
    return v == null ? null : ((OffsetDateTime) v).toInstant();
  }
}
