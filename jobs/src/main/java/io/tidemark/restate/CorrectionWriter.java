package io.tidemark.restate;

import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Change;
import io.tidemark.core.CorrectionLog;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.Fields;
import io.tidemark.core.RestatementRecords;
import io.tidemark.core.Schema;
import io.tidemark.core.Shapes;
import io.tidemark.core.Times;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.KeyFilters;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
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
 * {@link DriverWrites}): each aggregate's corrected windows and each fact feed's repaired records as position deletes
 * of the rows they replace plus the new rows, each dimension's late changes into its change log and the dimension
 * rebuilt from it, then one restatement-log row per correction. Several commits: a write cut short leaves the branch
 * half written, which is why the write stage starts from the plan's commit again.
 */
final class CorrectionWriter {
  private final PinnedTables branch;
  private final Pipeline pipeline;
  private final String runId;
  private final String branchName;
  private final Map<String, String> provenance;
  private final CrashPoints crash;

  /**
   * {@code branch}: the tables at the branch's head, to commit to; {@code crash}: where the crash tests may halt the
   * write ({@code restate:after-counts}, after the windows' writes, before the records').
   */
  CorrectionWriter(PinnedTables branch, Pipeline pipeline, String runId, String branchName, CrashPoints crash) {
    this.branch = branch;
    this.pipeline = pipeline;
    this.runId = runId;
    this.branchName = branchName;
    this.provenance = Provenance.ofRestatement(runId);
    this.crash = crash;
  }

  void write(CorrectionSet c) {
    for (Aggregate a : pipeline.aggregates()) {
      windows(a, c.windowsOf(a.name()));
    }
    crash.at("restate:after-counts");
    // the records and the changes carry the values of the fields promoted into their feeds, in the order the
    // branch's raw archives declare them
    Shapes shapes = PlannedCorrections.shapes(branch, pipeline);
    for (FactFeed f : pipeline.facts()) {
      records(f, shapes, c.recordsOf(f.name()));
    }
    for (DimensionFeed d : pipeline.dimensions()) {
      changes(d, shapes, c.changesOf(d.name()));
    }
    log(c, shapes);
  }

  private void windows(Aggregate a, List<CorrectionSet.WindowFix> windows) {
    if (windows.isEmpty()) {
      return;
    }
    Aggregation rule = a.rule();
    Set<Aggregation.Key> keys = windows.stream().map(CorrectionSet.WindowFix::key).collect(Collectors.toSet());
    Instant lo = windows.stream().map(CorrectionSet.WindowFix::start).min(Instant::compareTo).orElseThrow();
    Instant hi = windows.stream().map(CorrectionSet.WindowFix::start).max(Instant::compareTo).orElseThrow();
    String start = rule.windowStart().name();
    Expression filter = Expressions.and(KeyFilters.of(rule.groupBy(), keys.stream().map(Aggregation.Key::group)
        .toList()), Expressions.and(Expressions.greaterThanOrEqual(start, Times.micros(lo)),
        Expressions.lessThanOrEqual(start, Times.micros(hi))));
    List<List<Object>> added = windows.stream().map(w -> {
      List<Object> row = new ArrayList<>(w.key().values());
      row.addAll(w.fresh());
      return row;
    }).distinct().toList();
    Schema read = new Schema(rule.groupBy()).plus(rule.windowStart());
    replace(branch.get(a.table()), filter, r -> keys.contains(rule.keyOfOutput(r)), read, rule.schema(), added);
  }

  private void records(FactFeed f, Shapes shapes, List<CorrectionSet.RecordFix> records) {
    if (records.isEmpty()) {
      return;
    }
    // with the values of the fields promoted into the feed (the promotion gave the deduplicated table their columns)
    Schema columns = shapes.fact(f.name()).columns();
    Set<List<Object>> keys = records.stream().map(CorrectionSet.RecordFix::key).collect(Collectors.toSet());
    replace(branch.get(f.dedupTable()), KeyFilters.of(f.schema().key(), keys),
        r -> keys.contains(r.values(f.schema().key())), new Schema(f.schema().key()), columns,
        records.stream().map(CorrectionSet.RecordFix::first).toList());
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

  private void changes(DimensionFeed d, Shapes shapes, List<Change> changes) {
    if (changes.isEmpty()) {
      return;
    }
    // the changes carry the promoted attributes' values (the plan's order is the raw archive's, the log's too);
    // the write starts from the plan's commit every time, so each commit is made once: no batch ids to check
    new Scd2OnDriver(branch.get(d.changes()), branch.get(d.table()), shapes.dimension(d.name()))
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
  private void log(CorrectionSet c, Shapes shapes) {
    TableName log = pipeline.shared().restatementLog();
    DriverWrites.append(branch.get(log), RestatementRecords.LOG, CorrectionLog.rows(c, runId, branchName, shapes,
        pipeline.correctedTables(), Instant.now()), provenance);
  }
}
