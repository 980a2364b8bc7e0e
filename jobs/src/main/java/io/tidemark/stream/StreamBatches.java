package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.DriverWrites;
import io.tidemark.lakehouse.IcebergTables;
import io.tidemark.lakehouse.Schemas;
import java.util.List;
import java.util.TreeSet;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * The stream-batches table: a row per micro-batch of every stream run ({@link BatchRecord}).
 *
 * <p>A run's records are appended when the run ends, in one commit written on the driver (no Spark job), keyed
 * by query and batch id the way the batches' data is: the commit's summary carries the stream, the query id and the
 * newest batch recorded ({@link Provenance#ofRecords}), and a record of a batch at or below the newest one the table's
 * history holds for its query is not appended again. A batch Spark runs again (its checkpoint commit was lost, or
 * the process died after its data commits) therefore keeps one row. Spark's progress of a batch exists only once the
 * batch is done, so the row cannot go into the commit of the batch's data; a process that dies in the middle of a
 * run records none of that run's batches.
 */
public final class StreamBatches {
  private StreamBatches() {}

  /** Appends the run's records not in the table yet; how many it appended. */
  public static int append(SparkSession spark, TableName table, RunReport run) {
    if (run.records().isEmpty()) {
      return 0;
    }
    Table t = IcebergTables.load(spark, table);
    String queryId = run.records().get(0).queryId();
    long recorded = Provenance.lastCommittedBatch(t, queryId);
    List<BatchRecord> fresh = run.records().stream().filter(r -> r.batchId() > recorded).toList();
    if (fresh.isEmpty()) {
      return 0;
    }
    TreeSet<Integer> arrivals = new TreeSet<>();
    fresh.forEach(r -> {
      if (r.arrival() != null) {
        arrivals.add(r.arrival());
      }
    });
    long newest = fresh.get(fresh.size() - 1).batchId();
    DriverWrites.append(t, Schemas.STREAM_BATCH, fresh.stream().map(BatchRecord::toRow).toList(),
        Provenance.ofRecords(run.stream(), queryId, newest, BatchArrivals.describe(arrivals)));
    return fresh.size();
  }

  /** Every record of the table, in the order the batches started. */
  public static List<BatchRecord> read(SparkSession spark, TableName table) {
    return spark.table(table.sql()).orderBy("started_at", "stream", "batch_id").collectAsList().stream()
        .map(BatchRecord::of).toList();
  }
}
