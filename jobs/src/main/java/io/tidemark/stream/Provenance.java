package io.tidemark.stream;

import static io.tidemark.core.CommitKeys.ARRIVALS;
import static io.tidemark.core.CommitKeys.BATCH_ID;
import static io.tidemark.core.CommitKeys.QUERY_ID;
import static io.tidemark.core.CommitKeys.RECORDED;
import static io.tidemark.core.CommitKeys.RESTATEMENT_STREAM;
import static io.tidemark.core.CommitKeys.RUN_ID;
import static io.tidemark.core.CommitKeys.STREAM;
import static io.tidemark.core.CommitKeys.WATERMARK;
import static io.tidemark.core.CommitKeys.WATERMARK_MS;

import io.tidemark.config.TableName;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;

/**
 * What tidemark writes into the summary of each Iceberg snapshot it commits, and what it reads back from there:
 * which stream (or restatement run) made the commit, and for a stream's commit the query, the micro-batch and the
 * watermark that batch used. Exactly once rests on it (a batch a query already committed is skipped), and the
 * restatement reads from it how far a stream has finalized its output.
 */
public final class Provenance {
  private Provenance() {}

  /** The summary properties of a stream's commit of one micro-batch. */
  public static Map<String, String> ofBatch(String stream, String queryId, long batchId, long watermarkMs,
                                            String arrivals) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(STREAM, stream);
    props.put(QUERY_ID, queryId);
    props.put(BATCH_ID, Long.toString(batchId));
    props.put(WATERMARK, Instant.ofEpochMilli(watermarkMs).toString());
    props.put(WATERMARK_MS, Long.toString(watermarkMs));
    if (!arrivals.isEmpty()) {
      props.put(ARRIVALS, arrivals);
    }
    return props;
  }

  /**
   * The summary properties of a commit of stream-batches records: the streams whose runs it records, per query the
   * newest batch recorded, the arrivals the batches read.
   */
  public static Map<String, String> ofRecords(List<String> streams, Map<String, Long> newestPerQuery,
                                              String arrivals) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(STREAM, String.join(", ", streams));
    newestPerQuery.forEach((query, batch) -> props.put(RECORDED + query, Long.toString(batch)));
    if (!arrivals.isEmpty()) {
      props.put(ARRIVALS, arrivals);
    }
    return props;
  }

  /** The newest batch of this query recorded in the stream-batches table (in its current ancestry), or -1. */
  public static long lastRecordedBatch(Table table, String queryId) {
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      String batch = s.summary().get(RECORDED + queryId);
      if (batch != null) {
        return Long.parseLong(batch);
      }
    }
    return -1;
  }

  /** The summary properties of a restatement run's commits. */
  public static Map<String, String> ofRestatement(String runId) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(RUN_ID, runId);
    props.put(STREAM, RESTATEMENT_STREAM);
    return props;
  }

  /** Whether {@code stream} made this snapshot. */
  public static boolean madeBy(Snapshot snapshot, String stream) {
    return stream.equals(snapshot.summary().get(STREAM));
  }

  /** The newest batch id this query committed to the table (in the current snapshot's ancestry), or -1. */
  public static long lastCommittedBatch(Table table, String queryId) {
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      if (queryId.equals(s.summary().get(QUERY_ID))) {
        return Long.parseLong(s.summary().get(BATCH_ID));
      }
    }
    return -1;
  }

  /** The snapshot this query made for this batch, if it is in the current snapshot's ancestry. */
  public static Optional<Snapshot> batchSnapshot(Table table, String queryId, long batchId) {
    String batch = Long.toString(batchId);
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      if (queryId.equals(s.summary().get(QUERY_ID)) && batch.equals(s.summary().get(BATCH_ID))) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /** The watermark carried by the newest commit of {@code stream} in the table's current ancestry. */
  public static Optional<Instant> committedWatermark(Table table, String stream) {
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      String ms = s.summary().get(WATERMARK_MS);
      if (madeBy(s, stream) && ms != null) {
        return Optional.of(Instant.ofEpochMilli(Long.parseLong(ms)));
      }
    }
    return Optional.empty();
  }

  /**
   * How far a stream has finalized its output: the watermark of the newest batch its checkpoint committed, else
   * (no checkpoint, e.g. it was lost or lives elsewhere) the watermark its newest commit to its table carries.
   * Every window ending at or before it has been emitted, every event at or before it kept or dropped for good.
   */
  public static Optional<Instant> watermark(SparkSession spark, StreamSpec stream) {
    Optional<Instant> fromCheckpoint = OffsetLog.committedWatermark(spark, stream.checkpoint());
    if (fromCheckpoint.isPresent()) {
      return fromCheckpoint;
    }
    return committedWatermark(IcebergTables.load(spark, stream.table()), stream.name());
  }

  /** The current snapshot id of a table, empty for a table never written. */
  public static Optional<Long> head(SparkSession spark, TableName table) {
    Snapshot s = IcebergTables.load(spark, table).currentSnapshot();
    return s == null ? Optional.empty() : Optional.of(s.snapshotId());
  }
}
