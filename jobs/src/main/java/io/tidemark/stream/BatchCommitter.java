package io.tidemark.stream;

import io.tidemark.CommandScope;
import io.tidemark.CrashPoints;
import io.tidemark.config.TableName;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.spark.SparkCommits;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Writes the micro-batches of one query into Iceberg tables, exactly once. Each commit's snapshot summary
 * carries the stream, the query id, the batch id and the batch's watermark ({@link Provenance}); before writing,
 * the table's history is searched for that query id, and a batch it already holds is skipped. So a batch that Spark runs
 * again after a crash (committed to Iceberg, not yet to the checkpoint) is not written twice. Batches with
 * nothing to write make no commit (see {@link Output} for the one exception).
 */
final class BatchCommitter {
  // The crash tests' points (CrashPoints): <stream>:before-commit:<batch> when the batch starts,
  // <stream>:after-commit:<batch> right after the batch's first non-empty table commit, before any other table and
  // before Spark's checkpoint commit; <stream>:after-commit:* whichever batch gets there first.

  private final String stream;
  private final String checkpoint;
  private final List<BatchResult> results = new ArrayList<>();
  /**
   * The newest batch this query committed to each table, as far as this run knows: looked up in the table's
   * history at the run's first batch, then kept up to date by the run's own commits. Only this query writes
   * commits with its id, so later batches of the run need no lookup.
   */
  private final Map<TableName, Long> lastCommitted = new java.util.HashMap<>();
  /** Per batch: the rows a stream without a stateful operator dropped itself, late and repeated. */
  private final Map<Long, long[]> dropped = new java.util.HashMap<>();
  /** Per batch: the rows that carried rescued data (a raw archive's). */
  private final Map<Long, Long> rescued = new java.util.HashMap<>();
  /** Per batch: the arrivals it read, as its commits carry them. */
  private final Map<Long, String> arrivals = new java.util.HashMap<>();
  /** Landed files a batch reads and leaves out (a raw archive's on a lost checkpoint): none of its arrivals. */
  private java.util.Set<String> leftOut = java.util.Set.of();
  private final TableName quarantine;
  private final CrashPoints crash;

  /**
   * What one batch did to one table: the rows it committed and the commit's snapshot (for a batch already
   * committed: the rows and snapshot of that earlier commit; none when it wrote nothing); compute covers producing
   * and counting the rows, write the data files and the Iceberg commit (of which commit is the catalog commit
   * itself), catalog the lookups of the table's history.
   */
  record BatchResult(long batchId, TableName table, long rows, boolean alreadyCommitted, Long snapshotId,
                     long computeMs, long writeMs, long commitMs, long catalogMs) {}

  BatchCommitter(String stream, String checkpoint, CrashPoints crash) {
    this(stream, checkpoint, null, crash);
  }

  /**
   * {@code quarantine}: the table of the stream's rejected lines, if it has one; {@code crash}: where the crash tests
   * may halt the batch ({@code <stream>:before-commit:<batch>}, {@code <stream>:after-commit:<batch>}).
   */
  BatchCommitter(String stream, String checkpoint, TableName quarantine, CrashPoints crash) {
    this.stream = stream;
    this.checkpoint = checkpoint;
    this.quarantine = quarantine;
    this.crash = crash;
  }

  List<BatchResult> results() {
    return results;
  }

  String stream() {
    return stream;
  }

  String checkpoint() {
    return checkpoint;
  }

  TableName quarantine() {
    return quarantine;
  }

  /** The watermark the batch runs with, as Spark wrote it into the offset log before running it. */
  long watermarkMs(SparkSession spark, long batchId) {
    return OffsetLog.read(spark, checkpoint, batchId).watermarkMs();
  }

  /**
   * Rows a stream without a stateful operator dropped itself: behind the watermark, or repeats of rows already
   * written. The run's report adds them to what the stateful operators dropped.
   */
  void dropped(long batchId, long late, long duplicates) {
    long[] d = dropped.computeIfAbsent(batchId, k -> new long[2]);
    d[0] += late;
    d[1] += duplicates;
  }

  /** Late rows the stream dropped itself in the batch. */
  long lateDropped(long batchId) {
    return dropped.getOrDefault(batchId, new long[2])[0];
  }

  /** Repeated rows the stream dropped itself in the batch. */
  long duplicatesDropped(long batchId) {
    return dropped.getOrDefault(batchId, new long[2])[1];
  }

  /** The rows of a raw archive's batch that carried rescued data. */
  void rescued(long batchId, long rows) {
    rescued.put(batchId, rows);
  }

  /** The rows of the batch that carried rescued data; null for a stream that keeps none. */
  Long rescued(long batchId) {
    return rescued.get(batchId);
  }

  /** The arrivals the batch read ({@link BatchArrivals}): as its commits carried them, else from the checkpoint. */
  String arrivals(SparkSession spark, long batchId) {
    return arrivals.computeIfAbsent(batchId, b -> BatchArrivals.of(spark, checkpoint, b, leftOut));
  }

  /** The batches read {@code files} and leave them out: their commits name none of those files' arrivals. */
  BatchCommitter leavingOut(java.util.Set<String> files) {
    leftOut = files;
    return this;
  }

  /** How a stream's output is best written; each way runs the batch's plan exactly once. */
  enum Output {
    /** Few rows (e.g. finalized windows): cached, counted, written only when there are any. */
    SMALL,
    /**
     * Many rows (e.g. deduplicated events): written straight from the plan, without caching them; the count
     * comes from the commit. A batch with no new input only runs its plan (to move state on), writing nothing.
     */
    LARGE,
    /** Derived from a batch the caller has cached: counted, written only when there are any. */
    DERIVED
  }

  /** Appends each (table, rows) pair of a micro-batch, each table on its own, exactly once. */
  void append(long batchId, Map<TableName, Dataset<Row>> outputs, Output kind) {
    for (Map.Entry<TableName, Dataset<Row>> e : outputs.entrySet()) {
      commit(batchId, e.getKey(), e.getValue(), kind, rows -> {
        try {
          rows.writeTo(e.getKey().sql()).append();
        } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException gone) {
          throw new StreamException("table " + e.getKey() + " disappeared while the stream ran");
        }
      });
    }
  }

  /** The same for rows the caller cached and counted ({@code rows} per table). */
  void appendCounted(long batchId, Map<TableName, Dataset<Row>> outputs, Map<TableName, Long> rows) {
    for (Map.Entry<TableName, Dataset<Row>> e : outputs.entrySet()) {
      commit(e.getValue().sparkSession(), batchId, e.getKey(), e.getValue(), Output.DERIVED, rows.get(e.getKey()),
          out -> {
            try {
              out.writeTo(e.getKey().sql()).append();
            } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException gone) {
              throw new StreamException("table " + e.getKey() + " disappeared while the stream ran");
            }
          });
    }
  }

  /**
   * Writes a micro-batch's rows into one table with {@code writer} (an append, a MERGE), exactly once: skipped
   * when this query already committed the batch there, or when there is nothing to write.
   */
  void commit(long batchId, TableName table, Dataset<Row> output, Output kind, Consumer<Dataset<Row>> writer) {
    commit(output.sparkSession(), batchId, table, output, kind, null, writer);
  }

  /**
   * The same for rows the caller counted, written by {@code write} (through Iceberg's API on the driver, see
   * {@link io.tidemark.lakehouse.tables.DriverWrites}, or a Spark write of rows it cached): it gets the summary properties
   * the commit must carry. Nothing to do when there are no rows.
   */
  void commitCounted(SparkSession spark, long batchId, TableName table, long rows,
                     Consumer<Map<String, String>> write) {
    commitWith(spark, batchId, table, null, Output.DERIVED, rows, props -> {
      long before = CommitTimings.commitMs(table);
      write.accept(props);
      return CommitTimings.commitMs(table) - before;
    });
  }

  private void commit(SparkSession spark, long batchId, TableName table, Dataset<Row> output, Output kind,
                      Long knownRows, Consumer<Dataset<Row>> writer) {
    commitWith(spark, batchId, table, output, kind, knownRows, props -> write(output, writer, props, table));
  }

  /** {@code write} commits with the given summary properties and returns the catalog commit's milliseconds. */
  private void commitWith(SparkSession spark, long batchId, TableName table, Dataset<Row> output, Output kind,
                          Long knownRows, ToLongFunction<Map<String, String>> write) {
    String queryId = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
    if (queryId == null) {
      throw new IllegalStateException("not inside a streaming micro-batch");
    }
    OffsetLog.BatchMetadata meta = OffsetLog.read(spark, checkpoint, batchId);
    crash.at(stream + ":before-commit:" + batchId);
    long c0 = System.nanoTime();
    Long known = lastCommitted.get(table);
    if (known == null) {
      known = Provenance.lastCommittedBatch(load(spark, table), queryId);
      lastCommitted.put(table, known);
    }
    long catalogMs = (System.nanoTime() - c0) / 1_000_000;
    if (known >= batchId) {
      if (output != null && kind != Output.DERIVED) {
        // the plan must still run: its event times move the watermark on (Spark records the next batch's watermark
        // from this execution) and its stateful operator writes the same state again; skipped, the next batch
        // would run with the old watermark and keep what the uninterrupted run dropped as late
        output.write().format("noop").mode("append").save();
      }
      // what the earlier attempt committed, for the batch's record
      Snapshot earlier = Provenance.batchSnapshot(load(spark, table), queryId, batchId).orElse(null);
      results.add(new BatchResult(batchId, table, earlier == null ? 0 : addedRecords(earlier), true,
          earlier == null ? null : earlier.snapshotId(), 0, 0, 0, catalogMs));
      return;
    }
    Map<String, String> props = Provenance.ofBatch(stream, queryId, batchId, meta.watermarkMs(),
        arrivals(spark, batchId));
    long t0 = System.nanoTime();
    if (kind == Output.LARGE && !OffsetLog.noNewData(spark, checkpoint, batchId)) {
      long commitMs = inTurn(table, () -> write.applyAsLong(props));
      lastCommitted.put(table, batchId);
      long t1 = System.nanoTime();
      Snapshot committed = Provenance.batchSnapshot(load(spark, table), queryId, batchId).orElseThrow(() ->
          new IllegalStateException("no commit of batch " + batchId + " in " + table + " after writing it"));
      catalogMs += (System.nanoTime() - t1) / 1_000_000;
      results.add(new BatchResult(batchId, table, addedRecords(committed), false, committed.snapshotId(), 0,
          (t1 - t0) / 1_000_000, commitMs, catalogMs));
      crash.at(stream + ":after-commit:" + batchId);
      return;
    }
    boolean cache = kind != Output.DERIVED;
    Dataset<Row> rows = cache ? output.persist(StorageLevel.MEMORY_AND_DISK()) : output;
    try {
      long n = knownRows != null ? knownRows : rows.count();
      long t1 = System.nanoTime();
      long commitMs = 0;
      Long snapshot = null;
      if (n > 0) {
        CommitTimings.forgetLastSnapshot(table);
        commitMs = inTurn(table, () -> write.applyAsLong(props));
        snapshot = CommitTimings.lastSnapshot(table);
        if (snapshot == null) {
          // a commit Iceberg reported on another thread than the write's: found by its query and batch instead
          snapshot = Provenance.batchSnapshot(load(spark, table), queryId, batchId).map(Snapshot::snapshotId)
              .orElse(null);
        }
        lastCommitted.put(table, batchId);
        crash.at(stream + ":after-commit:" + batchId);
      }
      results.add(new BatchResult(batchId, table, n, false, snapshot, (t1 - t0) / 1_000_000,
          (System.nanoTime() - t1) / 1_000_000, commitMs, catalogMs));
    } finally {
      if (cache) {
        rows.unpersist();
      }
    }
  }

  /**
   * Runs a write of the table when no other stream of this command writes it: the raw archives run at once and all
   * append to the quarantine and the expectations. Two commits at once would meet in Nessie, and Iceberg would append
   * the loser's files again after a wait (logging the conflict with its stack trace); in turn, each commits at the
   * first try. A write by another command still meets that retry.
   */
  private static long inTurn(TableName table, java.util.function.LongSupplier write) {
    synchronized (CommandScope.current().get(CommitTurns.class, CommitTurns::new).of(table)) {
      return write.getAsLong();
    }
  }

  /** The command's one lock per table it writes. */
  private static final class CommitTurns {
    private final Map<String, Object> locks = new java.util.concurrent.ConcurrentHashMap<>();

    Object of(TableName table) {
      return locks.computeIfAbsent(table.toString(), k -> new Object());
    }
  }

  /** Writes and commits; returns the milliseconds the table's catalog commit took (see {@link CommitTimings}). */
  private static long write(Dataset<Row> rows, Consumer<Dataset<Row>> writer, Map<String, String> props,
                            TableName table) {
    long before = CommitTimings.commitMs(table);
    SparkCommits.withSummary(props, () -> writer.accept(rows));
    return CommitTimings.commitMs(table) - before;
  }

  private static long addedRecords(Snapshot s) {
    return Long.parseLong(s.summary().getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"));
  }

  static Table load(SparkSession spark, TableName table) {
    return IcebergTables.load(spark, table);
  }
}
