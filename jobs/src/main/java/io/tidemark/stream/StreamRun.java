package io.tidemark.stream;

import io.tidemark.fence.OffsetLog;
import io.tidemark.TidemarkException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/** Runs a query until availableNow is done, and sums up what its micro-batches did. */
final class StreamRun {
  private StreamRun() {}

  /** An availableNow query in append mode that hands each micro-batch to {@code eachBatch}. */
  static DataStreamWriter<Row> availableNow(Dataset<Row> stream, String checkpoint,
                                            VoidFunction2<Dataset<Row>, Long> eachBatch) {
    return stream.writeStream()
        .outputMode("append")
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .foreachBatch(eachBatch);
  }

  /** {@code lateUnit}: what the stream's late rows are (event, partial count, change, row). */
  static RunReport run(String name, String lateUnit, DataStreamWriter<Row> writer, BatchCommitter committer) {
    long t0 = System.nanoTime();
    StreamingQuery q;
    long startMs;
    try {
      q = writer.start();
      startMs = (System.nanoTime() - t0) / 1_000_000;
    } catch (TimeoutException e) {
      throw new StreamException(name + ": the query did not start: " + e.getMessage(), e);
    }
    try {
      q.processAllAvailable();
      // availableNow ends the query itself, after the trailing no-data batch that emits finalized windows
      q.awaitTermination();
    } catch (StreamingQueryException e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root instanceof TidemarkException ours) {
        throw ours;
      }
      String kind = root.getClass().getSimpleName();
      String why = TidemarkException.firstLine(root);
      throw new StreamException(name + " failed: " + (why.equals(kind) ? kind : kind + ": " + why), e);
    } finally {
      try {
        q.stop();
      } catch (TimeoutException e) {
        // the query has ended already; nothing more to stop
      }
    }
    RunReport r = report(q.sparkSession(), lateUnit, q.recentProgress(), committer,
        (System.nanoTime() - t0) / 1e9);
    r.durationsMs().put("run.start", startMs);
    return r;
  }

  /** The run's report: a record per micro-batch, and Spark's and the commits' durations summed over them. */
  static RunReport report(SparkSession spark, String lateUnit, StreamingQueryProgress[] progress,
                          BatchCommitter committer, double seconds) {
    Map<String, Long> durations = new LinkedHashMap<>();
    List<StreamingQueryProgress> batches = new ArrayList<>();
    for (StreamingQueryProgress p : progress) {
      p.durationMs().forEach((k, v) -> durations.merge(k, v, Long::sum));
      // a trigger with nothing to do reports progress too, without running a batch
      if (p.durationMs().containsKey("addBatch")) {
        batches.add(p);
        // the trailing batch that only moves the watermark on (evicts state, emits finalized windows)
        if (p.numInputRows() == 0) {
          durations.merge("noDataBatch", p.durationMs().getOrDefault("triggerExecution", 0L), Long::sum);
        }
      }
      for (StateOperatorProgress op : p.stateOperators()) {
        durations.merge("state", op.allUpdatesTimeMs() + op.allRemovalsTimeMs() + op.commitTimeMs(), Long::sum);
      }
    }
    for (BatchCommitter.BatchResult r : committer.results()) {
      durations.merge("sink.compute", r.computeMs(), Long::sum);
      durations.merge("sink.icebergWrite", r.writeMs(), Long::sum);
      durations.merge("sink.icebergCommit", r.commitMs(), Long::sum);
      durations.merge("sink.catalog", r.catalogMs(), Long::sum);
    }
    List<BatchRecord> records = new ArrayList<>();
    for (int i = 0; i < batches.size(); i++) {
      Instant next = i + 1 < batches.size() ? watermark(batches.get(i + 1)) : null;
      records.add(record(spark, batches.get(i), next, lateUnit, committer));
    }
    return RunReport.of(committer.stream(), lateUnit, records, durations, seconds);
  }

  /**
   * A batch's record from its progress and its commits. {@code nextWatermark}: the watermark of the run's next
   * batch, which this batch's event times set; for the run's last batch it is read from the checkpoint's commit log.
   */
  private static BatchRecord record(SparkSession spark, StreamingQueryProgress p, Instant nextWatermark,
                                    String lateUnit, BatchCommitter committer) {
    long batchId = p.batchId();
    long late = committer.lateDropped(batchId);
    long duplicates = committer.duplicatesDropped(batchId);
    Long stateRows = null;
    Long stateBytes = null;
    for (StateOperatorProgress op : p.stateOperators()) {
      late += op.numRowsDroppedByWatermark();
      duplicates += op.customMetrics().getOrDefault("numDroppedDuplicateRows", 0L);
      stateRows = (stateRows == null ? 0 : stateRows) + op.numRowsTotal();
      stateBytes = (stateBytes == null ? 0 : stateBytes) + op.memoryUsedBytes();
    }
    Map<String, Long> written = new LinkedHashMap<>();
    Map<String, Long> snapshots = new LinkedHashMap<>();
    long quarantined = 0;
    long commitMs = 0;
    List<String> replayed = new ArrayList<>();
    for (BatchCommitter.BatchResult r : committer.results()) {
      if (r.batchId() != batchId) {
        continue;
      }
      commitMs += r.commitMs();
      if (r.alreadyCommitted()) {
        replayed.add(r.table().toString());
      }
      written.merge(r.table().toString(), r.rows(), Long::sum);
      if (r.snapshotId() != null) {
        snapshots.put(r.table().toString(), r.snapshotId());
      }
      if (r.table().equals(committer.quarantine())) {
        quarantined += r.rows();
      }
    }
    // before any event time was seen Spark reports the epoch: no watermark yet; a stream without one reports none
    boolean watermarked = p.eventTime().containsKey("watermark");
    Instant before = watermark(p);
    Instant after = !watermarked ? null : nextWatermark != null ? nextWatermark
        : epochAsNull(Instant.ofEpochMilli(OffsetLog.nextWatermarkMs(spark, committer.checkpoint(), batchId)));
    String arrivals = p.numInputRows() > 0 ? committer.arrivals(spark, batchId) : "";
    Instant started = Instant.parse(p.timestamp());
    Map<String, Long> d = p.durationMs();
    long duration = d.getOrDefault("triggerExecution", 0L);
    return new BatchRecord(committer.stream(), p.id().toString(), p.runId().toString(), batchId,
        BatchArrivals.newest(arrivals), arrivals.isEmpty() ? null : arrivals, started, started.plusMillis(duration),
        p.numInputRows(), written, quarantined, committer.rescued(batchId), late, lateUnit, duplicates, stateRows, stateBytes, before, after,
        eventTime(p, "min"), eventTime(p, "max"), duration, d.getOrDefault("queryPlanning", 0L),
        Math.max(0, d.getOrDefault("addBatch", 0L) - commitMs), commitMs, snapshots, replayed, false);
  }

  private static Instant watermark(StreamingQueryProgress p) {
    return eventTime(p, "watermark");
  }

  private static Instant eventTime(StreamingQueryProgress p, String key) {
    String v = p.eventTime().get(key);
    return v == null ? null : epochAsNull(Instant.parse(v));
  }

  private static Instant epochAsNull(Instant i) {
    return Instant.EPOCH.equals(i) ? null : i;
  }
}
