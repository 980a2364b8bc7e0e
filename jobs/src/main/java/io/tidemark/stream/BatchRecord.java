package io.tidemark.stream;

import io.tidemark.lakehouse.Schemas;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;

/**
 * One micro-batch of a stream's run, as its row of the stream-batches table holds it ({@link Schemas#STREAM_BATCH}):
 * what a run prints, {@code check} summarizes and {@code report} draws all come from these numbers.
 *
 * <p>{@code arrival} is the newest arrival the batch read ({@code arrivals} all of them), null for a batch that read
 * nothing new (the trailing batch that moves the watermark on). {@code rowsWritten} and {@code snapshots} map each
 * table the batch committed to (its name) to the rows and the snapshot of that commit; {@code replayedTables} are the
 * tables whose commit of the batch an earlier attempt (that crashed) had made, which those then name. {@code lateRowsDropped} counts
 * in {@code lateUnit}s (a stateful operator drops what it holds: the counts drop a late partial count per window and
 * company). State and watermarks are null for a stream without them. Times: {@code durationMs} the whole trigger,
 * {@code planningMs} Spark's planning, {@code commitMs} the Iceberg catalog commits, {@code workMs} the rest of the
 * batch's work (reading, computing, writing data files).
 *
 * <p>A {@code recovered} record is of a batch that ended in a process that died (or failed) before it recorded the
 * batch: made later from what the checkpoint and the batch's commits still tell (arrivals, times, watermarks, rows
 * and snapshots; the input rows for a raw archive, where every line is archived or quarantined). What only Spark's
 * progress knew (the input of other streams, rows dropped, state, event times, durations) is null then.
 */
public record BatchRecord(String stream, String queryId, String runId, long batchId, Integer arrival,
                          String arrivals, Instant startedAt, Instant endedAt, Long inputRows,
                          Map<String, Long> rowsWritten, long rowsQuarantined, Long lateRowsDropped, String lateUnit,
                          Long duplicatesDropped, Long stateRows, Long stateBytes, Instant watermarkBefore,
                          Instant watermarkAfter, Instant eventTimeMin, Instant eventTimeMax, Long durationMs,
                          Long planningMs, Long workMs, Long commitMs, Map<String, Long> snapshots,
                          List<String> replayedTables, boolean recovered) {

  public BatchRecord {
    rowsWritten = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rowsWritten));
    snapshots = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(snapshots));
    replayedTables = List.copyOf(replayedTables);
  }

  /** Whether the batch ran again after a crash and found commits an earlier attempt had made. */
  public boolean replayed() {
    return !replayedTables.isEmpty();
  }

  /** The row of the table. */
  public Row toRow() {
    return new GenericRowWithSchema(new Object[] {stream, queryId, runId, batchId, arrival, arrivals,
        timestamp(startedAt), timestamp(endedAt), inputRows, rowsWritten, rowsQuarantined, lateRowsDropped, lateUnit,
        duplicatesDropped, stateRows, stateBytes, timestamp(watermarkBefore), timestamp(watermarkAfter),
        timestamp(eventTimeMin), timestamp(eventTimeMax), durationMs, planningMs, workMs, commitMs, snapshots,
        replayedTables, recovered}, Schemas.STREAM_BATCH);
  }

  /** A row of the table read back (by column name: a table may have more columns than these). */
  public static BatchRecord of(Row r) {
    return new BatchRecord(r.getAs("stream"), r.getAs("query_id"), r.getAs("run_id"), r.<Long>getAs("batch_id"),
        r.getAs("arrival"), r.getAs("arrivals"), instant(r, "started_at"), instant(r, "ended_at"),
        r.getAs("input_rows"), map(r, "rows_written"), number(r, "rows_quarantined"), r.getAs("late_rows_dropped"),
        r.getAs("late_unit"), r.getAs("duplicates_dropped"), r.getAs("state_rows"), r.getAs("state_bytes"),
        instant(r, "watermark_before"), instant(r, "watermark_after"), instant(r, "event_time_min"),
        instant(r, "event_time_max"), r.getAs("duration_ms"), r.getAs("planning_ms"), r.getAs("work_ms"),
        r.getAs("commit_ms"), map(r, "snapshots"), list(r, "replayed_tables"),
        Boolean.TRUE.equals(r.getAs("recovered")));
  }

  /** A nullable count as a number to add: a recovered batch's unknowns count for nothing in a sum. */
  public static long orZero(Long n) {
    return n == null ? 0 : n;
  }

  private static Timestamp timestamp(Instant i) {
    return i == null ? null : Timestamp.from(i);
  }

  private static Instant instant(Row r, String column) {
    Timestamp t = r.getAs(column);
    return t == null ? null : t.toInstant();
  }

  private static long number(Row r, String column) {
    Long v = r.getAs(column);
    return v == null ? 0 : v;
  }

  private static List<String> list(Row r, String column) {
    int i = r.fieldIndex(column);
    return r.isNullAt(i) ? List.of() : r.<String>getList(i);
  }

  private static Map<String, Long> map(Row r, String column) {
    int i = r.fieldIndex(column);
    return r.isNullAt(i) ? Map.of() : r.<String, Long>getJavaMap(i);
  }
}
