package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.IcebergTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
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
  /**
   * Test hook for crash tests: {@code <stream>:before-commit:<batch>} halts the JVM when the batch starts,
   * {@code <stream>:after-commit:<batch>} right after the batch's first non-empty table commit, before any
   * other table and before Spark's checkpoint commit. {@code *} stands for any batch: the first to get there halts.
   */
  static final String CRASH_HOOK = "TIDEMARK_TEST_CRASH";

  private final String stream;
  private final String checkpoint;
  private final List<BatchResult> results = new ArrayList<>();

  /** What one batch did to one table; compute covers producing and counting the rows, write the Iceberg commit. */
  record BatchResult(long batchId, TableName table, long rows, boolean alreadyCommitted, long watermarkMs,
                     long computeMs, long writeMs) {}

  BatchCommitter(String stream, String checkpoint) {
    this.stream = stream;
    this.checkpoint = checkpoint;
  }

  List<BatchResult> results() {
    return results;
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

  /**
   * Writes a micro-batch's rows into one table with {@code writer} (an append, a MERGE), exactly once: skipped
   * when this query already committed the batch there, or when there is nothing to write.
   */
  void commit(long batchId, TableName table, Dataset<Row> output, Output kind, Consumer<Dataset<Row>> writer) {
    SparkSession spark = output.sparkSession();
    String queryId = spark.sparkContext().getLocalProperty("sql.streaming.queryId");
    if (queryId == null) {
      throw new IllegalStateException("not inside a streaming micro-batch");
    }
    OffsetLog.BatchMetadata meta = OffsetLog.read(spark, checkpoint, batchId);
    crashIfAsked("before-commit", batchId);
    if (Provenance.lastCommittedBatch(load(spark, table), queryId) >= batchId) {
      results.add(new BatchResult(batchId, table, 0, true, meta.watermarkMs(), 0, 0));
      return;
    }
    Map<String, String> props = Provenance.ofBatch(stream, queryId, batchId, meta.watermarkMs());
    long t0 = System.nanoTime();
    if (kind == Output.LARGE && !OffsetLog.noNewData(spark, checkpoint, batchId)) {
      write(output, writer, props);
      Snapshot committed = Provenance.batchSnapshot(load(spark, table), queryId, batchId).orElseThrow(() ->
          new IllegalStateException("no commit of batch " + batchId + " in " + table + " after writing it"));
      long rows = Long.parseLong(committed.summary().getOrDefault("added-records", "0"));
      results.add(new BatchResult(batchId, table, rows, false, meta.watermarkMs(), 0,
          (System.nanoTime() - t0) / 1_000_000));
      crashIfAsked("after-commit", batchId);
      return;
    }
    boolean cache = kind != Output.DERIVED;
    Dataset<Row> rows = cache ? output.persist(StorageLevel.MEMORY_AND_DISK()) : output;
    try {
      long n = rows.count();
      long t1 = System.nanoTime();
      if (n > 0) {
        write(rows, writer, props);
        crashIfAsked("after-commit", batchId);
      }
      results.add(new BatchResult(batchId, table, n, false, meta.watermarkMs(), (t1 - t0) / 1_000_000,
          (System.nanoTime() - t1) / 1_000_000));
    } finally {
      if (cache) {
        rows.unpersist();
      }
    }
  }

  private static void write(Dataset<Row> rows, Consumer<Dataset<Row>> writer, Map<String, String> props) {
    CommitMetadata.withCommitProperties(props, () -> {
      writer.accept(rows);
      return null;
    }, RuntimeException.class);
  }

  static Table load(SparkSession spark, TableName table) {
    return IcebergTables.load(spark, table);
  }

  private void crashIfAsked(String stage, long batchId) {
    String hook = System.getenv(CRASH_HOOK);
    if (hook == null || !hook.startsWith(stream + ":" + stage + ":")) {
      return;
    }
    String batch = hook.substring(hook.lastIndexOf(':') + 1);
    if (batch.equals(Long.toString(batchId)) || batch.equals("*")) {
      System.err.println("tidemark: " + CRASH_HOOK + " halts the JVM " + stage + " of batch " + batchId);
      System.err.flush();
      Runtime.getRuntime().halt(137);
    }
  }
}
