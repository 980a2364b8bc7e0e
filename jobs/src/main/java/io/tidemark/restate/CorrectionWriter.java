package io.tidemark.restate;

import io.tidemark.CrashHook;
import io.tidemark.config.Tables;
import io.tidemark.lakehouse.DriverReads;
import io.tidemark.lakehouse.DriverWrites;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.restate.CorrectionSet.EventFix;
import io.tidemark.restate.CorrectionSet.LateChange;
import io.tidemark.restate.CorrectionSet.WindowFix;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2OnDriver;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.StructType;

/**
 * The write step: the planned corrections onto the branch, each table in one commit written on the driver (see
 * {@link DriverWrites}): the corrected windows and the repaired events as position deletes of the rows they
 * replace plus the new rows, the late company changes into the change log and the dimension rebuilt from it, then
 * one restatement-log row per correction. Several commits: a write cut short leaves the branch half written, which
 * is why the write stage starts from the plan's commit again.
 */
final class CorrectionWriter {
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  private final PinnedTables branch;
  private final Tables tables;
  private final String runId;
  private final String branchName;
  private final Map<String, String> provenance;

  /** {@code branch}: the tables at the branch's head, to commit to. */
  CorrectionWriter(PinnedTables branch, Tables tables, String runId, String branchName) {
    this.branch = branch;
    this.tables = tables;
    this.runId = runId;
    this.branchName = branchName;
    this.provenance = Provenance.ofRestatement(runId);
  }

  void write(CorrectionSet c) {
    windows(c.windows());
    // the crash tests halt here, between the counts and the dedup writes
    CrashHook.at("restate:after-counts");
    events(c.events());
    changes(c.changes());
    log(c);
  }

  private void windows(List<WindowFix> windows) {
    if (windows.isEmpty()) {
      return;
    }
    Table counts = branch.get(tables.eventCounts());
    Set<List<Object>> keys = windows.stream().map(w -> List.<Object>of(w.companyId(), w.wStart()))
        .collect(Collectors.toSet());
    Instant lo = windows.stream().map(WindowFix::wStart).min(Instant::compareTo).orElseThrow();
    Instant hi = windows.stream().map(WindowFix::wStart).max(Instant::compareTo).orElseThrow();
    Expression filter = Expressions.and(Expressions.in("company_id", windows.stream().map(WindowFix::companyId)
        .distinct().toArray()), Expressions.and(Expressions.greaterThanOrEqual("w_start", DriverCorrections.micros(lo)),
        Expressions.lessThanOrEqual("w_start", DriverCorrections.micros(hi))));
    List<Row> added = windows.stream().map(w -> List.<Object>of(w.companyId(), w.wStart(), w.newN())).distinct()
        .map(v -> RowFactory.create(v.get(0), Timestamp.from((Instant) v.get(1)), v.get(2))).toList();
    replace(counts, filter, r -> keys.contains(List.of(r.getField("company_id"),
        DriverCorrections.instant(r.getField("w_start")))), List.of("company_id", "w_start"), Schemas.WINDOW_COUNT,
        added);
  }

  private void events(List<EventFix> events) {
    if (events.isEmpty()) {
      return;
    }
    Expression filter = Expressions.in("event_id", events.stream().map(EventFix::eventId).distinct().toArray());
    List<Row> first = events.stream().map(e -> RowFactory.create(e.eventId(), e.companyId(), e.amount(),
        Timestamp.from(e.eventTs()))).toList();
    replace(branch.get(tables.events()), filter, r -> true, List.of("event_id"), Schemas.EVENT, first);
  }

  /** One commit: the rows {@code filter} and {@code removed} pick are deleted by position, {@code added} appended. */
  private void replace(Table table, Expression filter, Predicate<Record> removed, List<String> columns,
                       StructType fields, List<Row> added) {
    Long readAt = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    List<DriverWrites.Position> positions = new ArrayList<>();
    for (Record r : DriverReads.read(table, readAt, filter, columns, true, Long.MAX_VALUE)) {
      if (removed.test(r)) {
        positions.add(new DriverWrites.Position((String) r.getField(DriverReads.FILE),
            (Long) r.getField(DriverReads.POS)));
      }
    }
    Map<String, DataFile> files = readAt == null ? Map.of() : DriverReads.dataFiles(table, readAt,
        filter, positions.stream().map(DriverWrites.Position::file).collect(Collectors.toSet()));
    DriverWrites.replace(table, readAt, positions, files, fields, added, filter, provenance);
  }

  private void changes(List<LateChange> changes) {
    if (changes.isEmpty()) {
      return;
    }
    List<Row> rows = changes.stream().map(c -> (Row) new GenericRowWithSchema(new Object[] {c.companyId(), c.name(),
        c.tier(), Timestamp.from(c.changeTs()), c.deleted()}, Schemas.COMPANY_CHANGE)).toList();
    // the write starts from the plan's commit every time, so each commit is made once: no batch ids to check
    Scd2OnDriver.apply(branch.get(tables.companyChanges()), branch.get(tables.companies()), rows,
        new Scd2OnDriver.Commits() {
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

  /** One restatement-log row per correction: what, where, old value, new value. */
  private void log(CorrectionSet c) {
    Timestamp now = Timestamp.from(Instant.now());
    List<Row> rows = new ArrayList<>();
    for (WindowFix w : c.windows()) {
      rows.add(logRow(tables.eventCounts().toString(), w.oldN() == null ? "window_insert" : "window_recount",
          joined("|", w.companyId(), SECONDS.format(w.wStart())), w.oldN() == null ? null : w.oldN().toString(),
          Long.toString(w.newN()), now));
    }
    for (EventFix e : c.events()) {
      rows.add(logRow(tables.events().toString(), e.oldRows() == 0 ? "event_added"
              : e.oldRows() > 1 ? "duplicates_removed" : "event_replaced", Integer.toString(e.eventId()),
          e.oldRows() + " row(s)", joined("|", e.companyId(), e.amount() == null ? null : e.amount().toString(),
              SECONDS.format(e.eventTs())), now));
    }
    for (LateChange ch : c.changes()) {
      rows.add(logRow(tables.companies().toString(), "scd2_late_change",
          joined("@", ch.companyId(), SECONDS.format(ch.changeTs())), null,
          ch.deleted() ? "deleted" : joined("|", ch.name(), ch.tier()), now));
    }
    DriverWrites.append(branch.get(tables.restatementLog()), Schemas.CORRECTION, rows, provenance);
  }

  private Row logRow(String table, String correction, String key, String oldValue, String newValue, Timestamp at) {
    return RowFactory.create(runId, branchName, table, correction, key, oldValue, newValue, at);
  }

  /** The values that are there, joined (as SQL's concat_ws, which skips nulls). */
  private static String joined(String separator, String... values) {
    return Stream.of(values).filter(Objects::nonNull).collect(Collectors.joining(separator));
  }
}
