package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.LocalSpark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.CommitLog;
import org.apache.spark.sql.execution.streaming.OffsetSeq;
import org.apache.spark.sql.execution.streaming.OffsetSeqLog;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OffsetLog} and {@link SourceFileLog} against the checkpoint of a real query (a file source and a watermark),
 * two availableNow runs over two landed files; Spark's own log classes read the same checkpoint.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkCheckpointFenceTest {
  private final SparkSession spark = LocalSpark.get();
  private Path source;
  private String checkpoint;
  private final List<String> landed = new ArrayList<>();
  private String queryId;

  @BeforeAll
  void twoRunsOfAWindowedCount(@TempDir Path dir) throws Exception {
    source = Files.createDirectories(dir.resolve("events"));
    checkpoint = dir.resolve("cp").toString();
    land("a", "{\"id\":1,\"ts\":\"2026-01-01T00:01:00Z\"}\n{\"id\":2,\"ts\":\"2026-01-01T00:02:00Z\"}\n");
    run();
    land("b", "{\"id\":3,\"ts\":\"2026-01-01T00:30:00Z\"}\n");
    run();
  }

  private void land(String name, String lines) throws Exception {
    Path f = Files.writeString(source.resolve(name + ".jsonl"), lines, StandardCharsets.UTF_8);
    landed.add(f.toUri().toString());
  }

  private void run() throws Exception {
    // a watermark and no state: the logs are the same, and a run does not wait on a state store
    StreamingQuery q = spark.readStream().schema("id INT, ts TIMESTAMP").json(source.toString())
        .withWatermark("ts", "10 minutes")
        .writeStream().outputMode("append").format("noop").option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    queryId = q.id().toString();
  }

  private OffsetSeq sparksOffsets(long batch) {
    return new OffsetSeqLog(spark, checkpoint + "/offsets").get(batch).get();
  }

  @Test
  void theOffsetAndCommitLogsReadAsSparkReadsThem() {
    Fence.holds(OffsetLog.class, "Spark's checkpoint format: offsets/ and commits/ entries of a version line, a line "
        + "of JSON metadata (batchWatermarkMs, batchTimestampMs; nextBatchWatermarkMs), a line per source", () -> {
      CommitLog commits = new CommitLog(spark, checkpoint + "/commits");
      long last = (Long) commits.getLatestBatchId().get();
      assertThat(OffsetLog.lastCommitted(spark, checkpoint)).isEqualTo(last);
      assertThat(OffsetLog.lastPlanned(spark, checkpoint)).isEqualTo(last);
      assertThat(OffsetLog.queryId(spark, checkpoint)).isEqualTo(queryId);
      for (long b = 0; b <= last; b++) {
        OffsetSeq spark = sparksOffsets(b);
        OffsetLog.BatchMetadata ours = OffsetLog.read(this.spark, checkpoint, b);
        assertThat(ours.watermarkMs()).as("batch %d's watermark", b).isEqualTo(spark.metadata().get().batchWatermarkMs());
        assertThat(ours.timestampMs()).isEqualTo(spark.metadata().get().batchTimestampMs());
        assertThat(OffsetLog.nextWatermarkMs(this.spark, checkpoint, b)).as("batch %d's next watermark", b)
            .isEqualTo(commits.get(b).get().nextBatchWatermarkMs());
      }
      assertThat(OffsetLog.read(spark, checkpoint, last).watermarkMs()).as("the watermark moved").isPositive();
    });
  }

  @Test
  void aNoDataBatchPlannedByHandIsOneSparkReadsAndRuns() {
    Fence.holds(OffsetLog.class, "Spark reading an offset entry written by hand, and running a batch planned but not "
        + "committed first when the query starts again", () -> {
      long last = OffsetLog.lastCommitted(spark, checkpoint);
      long watermark = OffsetLog.read(spark, checkpoint, last).watermarkMs() + 60_000;
      OffsetLog.planNoDataBatch(spark, checkpoint, last, watermark);
      OffsetSeq planned = sparksOffsets(last + 1);
      assertThat(planned.metadata().get().batchWatermarkMs()).isEqualTo(watermark);
      assertThat(planned.toString()).as("the same source offsets").isEqualTo(sparksOffsets(last).toString());
      assertThat(OffsetLog.noNewData(spark, checkpoint, last + 1)).isTrue();
      run();
      assertThat(OffsetLog.lastCommitted(spark, checkpoint)).as("the planned batch ran").isGreaterThan(last);
    });
  }

  @Test
  void theCheckpointFileManagerIsOneSparkHas() {
    Fence.holds(CheckpointFiles.class, "Spark's " + CheckpointFiles.SETTING + " taking "
        + CheckpointFiles.FILE_SYSTEM_MANAGER, () -> {
      org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
      conf.set(CheckpointFiles.SETTING, CheckpointFiles.FILE_SYSTEM_MANAGER);
      assertThat(org.apache.spark.sql.execution.streaming.CheckpointFileManager$.MODULE$.create(
          new org.apache.hadoop.fs.Path(checkpoint), conf).getClass().getName())
          .isEqualTo(CheckpointFiles.FILE_SYSTEM_MANAGER);
    });
  }

  @Test
  void theSourceLogListsTheFilesTheBatchesRead() {
    Fence.holds(SourceFileLog.class, "FileStreamSourceLog(VERSION, session, path).get(from, to): the files each "
        + "batch that found new files read, by its own log offsets", () -> {
      long last = OffsetLog.lastCommitted(spark, checkpoint);
      long through = OffsetLog.sourceLogOffset(spark, checkpoint, last);
      List<String> files = SourceFileLog.files(spark, checkpoint, 0, through);
      assertThat(files.stream().map(p -> p.replaceFirst("^file:/+", "/")).toList())
          .containsExactlyInAnyOrderElementsOf(landed.stream().map(p -> p.replaceFirst("^file:/+", "/")).toList());
      assertThat(SourceFileLog.files(spark, checkpoint, through, through)).as("the second arrival's batch alone")
          .hasSize(1).allMatch(p -> p.endsWith("b.jsonl"));
    });
  }
}
