package io.tidemark.restate;

import io.tidemark.CrashPoints;
import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CorrectionLog;
import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionRules.WindowKey;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.core.Events;
import io.tidemark.core.Fields;
import io.tidemark.core.RestatementRecords;
import io.tidemark.core.Schema;
import io.tidemark.core.Times;
import io.tidemark.core.WindowCounts;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2Apply;
import io.tidemark.stream.Scd2OnDriver;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The write step: the planned corrections onto the branch, each table in one commit written on the driver (see
 * {@link DriverWrites}): the corrected windows and the repaired events as position deletes of the rows they
 * replace plus the new rows, the late company changes into the change log and the dimension rebuilt from it, then
 * one restatement-log row per correction. Several commits: a write cut short leaves the branch half written, which
 * is why the write stage starts from the plan's commit again.
 */
final class CorrectionWriter {
  private final PinnedTables branch;
  private final Tables tables;
  private final String runId;
  private final String branchName;
  private final Map<String, String> provenance;
  private final CrashPoints crash;

  /**
   * {@code branch}: the tables at the branch's head, to commit to; {@code crash}: where the crash tests may halt the
   * write ({@code restate:after-counts}, between the counts and the dedup writes).
   */
  CorrectionWriter(PinnedTables branch, Tables tables, String runId, String branchName, CrashPoints crash) {
    this.branch = branch;
    this.tables = tables;
    this.runId = runId;
    this.branchName = branchName;
    this.provenance = Provenance.ofRestatement(runId);
    this.crash = crash;
  }

  void write(CorrectionSet c) {
    windows(c.windows());
    crash.at("restate:after-counts");
    // the events and the changes carry the values of the fields promoted into their feeds, in this order
    CorrectionPlan.Promoted promoted = c.events().isEmpty() && c.changes().isEmpty() ? CorrectionPlan.Promoted.NONE
        : PlannedCorrections.promoted(branch, tables);
    events(c.events(), promoted);
    changes(c.changes(), promoted);
    log(c);
  }

  private void windows(List<WindowFix> windows) {
    if (windows.isEmpty()) {
      return;
    }
    Table counts = branch.get(tables.eventCounts());
    Set<WindowKey> keys = windows.stream().map(w -> new WindowKey(w.companyId(), w.wStart()))
        .collect(Collectors.toSet());
    Instant lo = windows.stream().map(WindowFix::wStart).min(Instant::compareTo).orElseThrow();
    Instant hi = windows.stream().map(WindowFix::wStart).max(Instant::compareTo).orElseThrow();
    String start = WindowCounts.W_START.name();
    Expression filter = Expressions.and(Expressions.in(WindowCounts.COMPANY_ID.name(), windows.stream()
        .map(WindowFix::companyId).distinct().toArray()), Expressions.and(Expressions.greaterThanOrEqual(start,
        Times.micros(lo)), Expressions.lessThanOrEqual(start, Times.micros(hi))));
    List<List<Object>> added = windows.stream().map(w -> List.<Object>of(w.companyId(), w.wStart(), w.newN()))
        .distinct().toList();
    replace(counts, filter, r -> keys.contains(new WindowKey(r.string(WindowCounts.COMPANY_ID),
        r.instant(WindowCounts.W_START))), Schema.of(WindowCounts.COMPANY_ID, WindowCounts.W_START),
        WindowCounts.SCHEMA, added);
  }

  private void events(List<EventFix> events, CorrectionPlan.Promoted promoted) {
    if (events.isEmpty()) {
      return;
    }
    Expression filter = Expressions.in(Events.EVENT_ID.name(), events.stream().map(EventFix::eventId).distinct()
        .toArray());
    // with the values of the fields promoted into the events (the promotion gave the events table their columns)
    List<List<Object>> first = events.stream().map(EventFix::values).toList();
    replace(branch.get(tables.events()), filter, r -> true, Schema.of(Events.EVENT_ID),
        Events.FEED.columns().plus(promoted.events()), first);
  }

  /** One commit: the rows {@code filter} and {@code removed} pick are deleted by position, {@code added} appended. */
  private void replace(Table table, Expression filter, Predicate<Fields> removed, Schema read, Schema fields,
                       List<List<Object>> added) {
    Long readAt = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    List<DriverWrites.Position> positions = new ArrayList<>();
    for (Record r : DriverReads.read(table, readAt, filter, read.names(), true, Long.MAX_VALUE)) {
      if (removed.test(IcebergFields.of(r))) {
        positions.add(new DriverWrites.Position((String) r.getField(DriverReads.FILE),
            (Long) r.getField(DriverReads.POS)));
      }
    }
    Map<String, DataFile> files = readAt == null ? Map.of() : DriverReads.dataFiles(table, readAt,
        filter, positions.stream().map(DriverWrites.Position::file).collect(Collectors.toSet()));
    DriverWrites.replace(table, readAt, positions, files, fields, added, filter, provenance);
  }

  private void changes(List<CompanyChange> changes, CorrectionPlan.Promoted promoted) {
    if (changes.isEmpty()) {
      return;
    }
    // the changes carry the promoted attributes' values (the plan's order is the raw archive's, the log's too);
    // the write starts from the plan's commit every time, so each commit is made once: no batch ids to check
    new Scd2OnDriver(branch.get(tables.companyChanges()), branch.get(tables.companies()), promoted.companies())
        .apply(changes, new Scd2Apply.Commits() {
          @Override
          public void toLog(long n, Consumer<Map<String, String>> write) {
            if (n > 0) {
              write.accept(provenance);
            }
          }

          @Override
          public void toDimension(long n, Consumer<Map<String, String>> write) {
            if (n > 0) {
              write.accept(provenance);
            }
          }
        });
  }

  /** One restatement-log row per correction: what, where, old value, new value ({@link CorrectionLog}). */
  private void log(CorrectionSet c) {
    DriverWrites.append(branch.get(tables.restatementLog()), RestatementRecords.LOG, CorrectionLog.rows(c, runId,
        branchName, new CorrectionLog.Targets(tables.eventCounts().toString(), tables.events().toString(),
            tables.companies().toString()), Instant.now()), provenance);
  }
}
