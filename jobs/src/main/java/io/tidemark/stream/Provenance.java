package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.IcebergTables;
import java.time.Instant;
import java.util.LinkedHashMap;
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
  /** The stream that made the commit ({@link #RESTATEMENT} for the restatement). */
  public static final String STREAM = "tidemark.stream";
  public static final String QUERY_ID = "tidemark.query-id";
  public static final String BATCH_ID = "tidemark.batch-id";
  /** The batch's watermark as an ISO instant, for people reading the snapshots table. */
  public static final String WATERMARK = "tidemark.watermark";
  /** The same watermark in epoch milliseconds, for code. */
  public static final String WATERMARK_MS = "tidemark.watermark-ms";
  /** The landed arrivals the batch read ("3", "1-3", "1,4"), when its files name one; for people and the Nessie log. */
  public static final String ARRIVALS = "tidemark.arrivals";
  /** The restatement run that made the commit. */
  public static final String RUN_ID = "tidemark.run-id";
  /** The value of {@link #STREAM} on the restatement's commits. */
  public static final String RESTATEMENT = "restate";

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

  /** The summary properties of a restatement run's commits. */
  public static Map<String, String> ofRestatement(String runId) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(RUN_ID, runId);
    props.put(STREAM, RESTATEMENT);
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
