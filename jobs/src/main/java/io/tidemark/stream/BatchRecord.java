package io.tidemark.stream;

import io.tidemark.core.BatchColumns;
import io.tidemark.core.Fields;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One micro-batch of a stream's run, as its row of the stream-batches table holds it ({@link BatchColumns#SCHEMA}):
 * what a run prints, {@code check} summarizes and {@code report} draws all come from these numbers.
 *
 * <p>{@code arrival} is the newest arrival the batch read ({@code arrivals} all of them), null for a batch that read
 * nothing new (the trailing batch that moves the watermark on). {@code rowsWritten} and {@code snapshots} map each
 * table the batch committed to (its name) to the rows and the snapshot of that commit; {@code replayedTables} are the
 * tables whose commit of the batch an earlier attempt (that crashed) had made, which those then name. {@code lateRowsDropped} counts
 * in {@code lateUnit}s (a stateful operator drops what it holds: an aggregate drops a late partial window per window
 * and group). {@code rowsRescued}: a raw archive's rows that carried rescued data (null for the other streams). State and
 * watermarks are null for a stream without them. Times: {@code durationMs} the whole trigger,
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
                          Map<String, Long> rowsWritten, long rowsQuarantined, Long rowsRescued,
                          Long lateRowsDropped, String lateUnit,
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

  /** The row of the table: values in the order of {@link BatchColumns#SCHEMA}, times as instants. */
  public List<Object> values() {
    return Arrays.asList(stream, queryId, runId, batchId, arrival, arrivals, startedAt, endedAt, inputRows,
        rowsWritten, rowsQuarantined, rowsRescued, lateRowsDropped, lateUnit, duplicatesDropped, stateRows, stateBytes,
        watermarkBefore, watermarkAfter, eventTimeMin, eventTimeMax, durationMs, planningMs, workMs, commitMs, snapshots,
        replayedTables, recovered);
  }

  /** A row of the table read back (by column name: a table may have more columns than these). */
  @SuppressWarnings("unchecked")
  public static BatchRecord of(Fields r) {
    return new BatchRecord(r.string(BatchColumns.STREAM), r.string(BatchColumns.QUERY_ID),
        r.string(BatchColumns.RUN_ID), r.bigint(BatchColumns.BATCH_ID), r.integer(BatchColumns.ARRIVAL),
        r.string(BatchColumns.ARRIVALS), r.instant(BatchColumns.STARTED_AT), r.instant(BatchColumns.ENDED_AT),
        r.bigint(BatchColumns.INPUT_ROWS), map(r.get(BatchColumns.ROWS_WRITTEN)),
        orZero(r.bigint(BatchColumns.ROWS_QUARANTINED)), r.bigint(BatchColumns.ROWS_RESCUED),
        r.bigint(BatchColumns.LATE_ROWS_DROPPED),
        r.string(BatchColumns.LATE_UNIT), r.bigint(BatchColumns.DUPLICATES_DROPPED), r.bigint(BatchColumns.STATE_ROWS),
        r.bigint(BatchColumns.STATE_BYTES), r.instant(BatchColumns.WATERMARK_BEFORE),
        r.instant(BatchColumns.WATERMARK_AFTER), r.instant(BatchColumns.EVENT_TIME_MIN),
        r.instant(BatchColumns.EVENT_TIME_MAX), r.bigint(BatchColumns.DURATION_MS), r.bigint(BatchColumns.PLANNING_MS),
        r.bigint(BatchColumns.WORK_MS), r.bigint(BatchColumns.COMMIT_MS), map(r.get(BatchColumns.SNAPSHOTS)),
        r.get(BatchColumns.REPLAYED_TABLES) == null ? List.of() : (List<String>) r.get(BatchColumns.REPLAYED_TABLES),
        Boolean.TRUE.equals(r.bool(BatchColumns.RECOVERED)));
  }

  /** A nullable count as a number to add: a recovered batch's unknowns count for nothing in a sum. */
  public static long orZero(Long n) {
    return n == null ? 0 : n;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> map(Object v) {
    return v == null ? Map.of() : (Map<String, Long>) v;
  }
}
