package io.tidemark.stream;

import io.tidemark.TidemarkException;
import io.tidemark.config.TableName;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
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
    RunReport r = report(name, lateUnit, q.recentProgress(), committer, (System.nanoTime() - t0) / 1e9);
    r.durationsMs().put("run.start", startMs);
    return r;
  }

  static RunReport report(String name, String lateUnit, StreamingQueryProgress[] progress,
                          BatchCommitter committer, double seconds) {
    int batches = 0;
    long input = 0;
    long late = 0;
    long duplicates = 0;
    long stateRows = 0;
    long stateMemory = 0;
    Instant watermark = null;
    Map<String, Long> durations = new LinkedHashMap<>();
    for (StreamingQueryProgress p : progress) {
      p.durationMs().forEach((k, v) -> durations.merge(k, v, Long::sum));
      // a trigger with nothing to do reports progress too, without running a batch
      if (p.durationMs().containsKey("addBatch")) {
        batches++;
        // the trailing batch that only moves the watermark on (evicts state, emits finalized windows)
        if (p.numInputRows() == 0) {
          durations.merge("noDataBatch", p.durationMs().getOrDefault("triggerExecution", 0L), Long::sum);
        }
      }
      input += p.numInputRows();
      for (StateOperatorProgress op : p.stateOperators()) {
        durations.merge("state", op.allUpdatesTimeMs() + op.allRemovalsTimeMs() + op.commitTimeMs(), Long::sum);
        late += op.numRowsDroppedByWatermark();
        duplicates += op.customMetrics().getOrDefault("numDroppedDuplicateRows", 0L);
      }
      String wm = p.eventTime().get("watermark");
      // before any event time was seen Spark reports the epoch: no watermark yet
      if (wm != null && !Instant.EPOCH.equals(Instant.parse(wm))) {
        watermark = Instant.parse(wm);
      }
    }
    if (progress.length > 0) {
      for (StateOperatorProgress op : progress[progress.length - 1].stateOperators()) {
        stateRows += op.numRowsTotal();
        stateMemory += op.memoryUsedBytes();
      }
    }
    late += committer.lateDropped();
    duplicates += committer.duplicatesDropped();
    Map<TableName, Long> written = new LinkedHashMap<>();
    int skipped = 0;
    for (BatchCommitter.BatchResult r : committer.results()) {
      written.merge(r.table(), r.rows(), Long::sum);
      durations.merge("sink.compute", r.computeMs(), Long::sum);
      durations.merge("sink.icebergWrite", r.writeMs(), Long::sum);
      durations.merge("sink.icebergCommit", r.commitMs(), Long::sum);
      durations.merge("sink.catalog", r.catalogMs(), Long::sum);
      if (r.alreadyCommitted()) {
        skipped++;
      }
    }
    return new RunReport(name, batches, input, late, lateUnit, duplicates, written, skipped, watermark, stateRows,
        stateMemory, durations, seconds);
  }
}
