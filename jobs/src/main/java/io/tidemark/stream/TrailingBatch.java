package io.tidemark.stream;

import io.tidemark.fence.OffsetLog;
import org.apache.spark.sql.SparkSession;

/**
 * Gives a stateful query back the trailing no-data batch that a crash can cost it.
 *
 * <p>A data batch that moves the watermark is followed, in the same run, by a batch without new data: it evicts
 * state and emits the windows the new watermark finalized. The next data batch then drops its late rows against
 * that same watermark, because Spark 3.5 drops a batch's late rows against the watermark of the batch before it
 * (its eviction uses the batch's own). A process that dies after the data batch's checkpoint commit and before
 * the no-data batch is planned leaves a checkpoint whose restart never runs that batch: Spark restores the new
 * watermark from the commit, but the next data batch drops late rows against the old one and keeps what an
 * uninterrupted run drops (dedup keeps late repeats, counts count late events).
 *
 * <p>Before such a query starts: when its newest batch is committed, moved the watermark, and nothing was
 * planned after it, the no-data batch is planned as Spark plans one: an offset log entry with the same source
 * offsets as the batch before (no new input) and the new watermark. Spark runs a planned, uncommitted batch
 * first when it starts, so the run goes on as the uninterrupted one did ({@link OffsetLog#planNoDataBatch}). An
 * uninterrupted run never leaves that shape: it ends with its no-data batch.
 */
final class TrailingBatch {
  private TrailingBatch() {}

  /** Plans the lost trailing batch of the query at {@code checkpoint}, if it lost one. */
  static void restoreIfLost(SparkSession spark, String checkpoint) {
    long committed = OffsetLog.lastCommitted(spark, checkpoint);
    if (committed < 0 || OffsetLog.lastPlanned(spark, checkpoint) != committed) {
      // nothing run yet, or a planned batch without its commit: Spark runs that one again itself
      return;
    }
    long next = OffsetLog.nextWatermarkMs(spark, checkpoint, committed);
    if (next <= OffsetLog.read(spark, checkpoint, committed).watermarkMs()) {
      return;
    }
    OffsetLog.planNoDataBatch(spark, checkpoint, committed, next);
  }
}
