package io.tidemark.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Reads a query's offset log (and its commit log) in its checkpoint. Spark writes {@code offsets/<batch>} before it runs the batch;
 * its metadata line holds the event-time watermark the batch uses (to drop late rows and to finalize
 * windows) and the batch timestamp. Those are the provenance a commit carries.
 */
public final class OffsetLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OffsetLog() {}

  /** The batch's watermark and timestamp, and its source offsets (the lines after the metadata). */
  record BatchMetadata(long watermarkMs, long timestampMs, String sourceOffsets) {}

  /**
   * Whether the batch reads no new input: its source offsets equal the previous batch's. Spark runs such a
   * batch only to move the watermark on (evict state, emit finalized windows).
   */
  static boolean noNewData(SparkSession spark, String checkpoint, long batchId) {
    return batchId > 0 && read(spark, checkpoint, batchId).sourceOffsets()
        .equals(read(spark, checkpoint, batchId - 1).sourceOffsets());
  }

  /**
   * The watermark of the newest batch the checkpoint's commit log holds: every window ending at or before it has
   * been emitted, every event at or before it has been dropped or kept for good. Empty without a committed batch.
   */
  static java.util.Optional<java.time.Instant> committedWatermark(SparkSession spark, String checkpoint) {
    long last = lastCommitted(spark, checkpoint);
    return last < 0 ? java.util.Optional.empty()
        : java.util.Optional.of(java.time.Instant.ofEpochMilli(read(spark, checkpoint, last).watermarkMs()));
  }

  /** The newest batch the checkpoint's commit log holds, or -1 when none is committed. */
  public static long lastCommitted(SparkSession spark, String checkpoint) {
    return newest(spark, new Path(checkpoint, "commits"));
  }

  /** The newest batch the checkpoint's offset log holds (planned, maybe not committed), or -1 when none. */
  static long lastPlanned(SparkSession spark, String checkpoint) {
    return newest(spark, new Path(checkpoint, "offsets"));
  }

  private static long newest(SparkSession spark, Path log) {
    try {
      FileSystem fs = log.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(log)) {
        return -1;
      }
      long last = -1;
      for (org.apache.hadoop.fs.FileStatus f : fs.listStatus(log)) {
        String n = f.getPath().getName();
        if (n.matches("\\d+")) {
          last = Math.max(last, Long.parseLong(n));
        }
      }
      return last;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log, e);
    }
  }

  /**
   * The watermark Spark computed from a committed batch's event times, for the batches after it: its commit log
   * entry ({@code commits/<batch>}) holds it.
   */
  static long nextWatermarkMs(SparkSession spark, String checkpoint, long batchId) {
    Path file = new Path(checkpoint, "commits/" + batchId);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
        String version = r.readLine();
        if (version == null || !version.startsWith("v")) {
          throw new IllegalStateException(file + ": not a commit log entry");
        }
        return JSON.readTree(r.readLine()).path("nextBatchWatermarkMs").asLong(0);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * The file source's own log offset in the offsets of {@code batchId} (its first source line), or -1 when the
   * batch has none: the source log counts only batches that found new files.
   */
  public static long sourceLogOffset(SparkSession spark, String checkpoint, long batchId) {
    String source = read(spark, checkpoint, batchId).sourceOffsets().lines().findFirst().orElse("");
    if (source.isBlank() || source.equals("-")) {
      return -1;
    }
    try {
      return JSON.readTree(source).path("logOffset").asLong(-1);
    } catch (IOException e) {
      throw new UncheckedIOException("offsets/" + batchId + " of " + checkpoint + ": not JSON", e);
    }
  }

  static BatchMetadata read(SparkSession spark, String checkpoint, long batchId) {
    Path file = new Path(checkpoint, "offsets/" + batchId);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(file), StandardCharsets.UTF_8))) {
        String version = r.readLine();
        if (version == null || !version.startsWith("v")) {
          throw new IllegalStateException(file + ": not an offset log entry");
        }
        JsonNode meta = JSON.readTree(r.readLine());
        StringBuilder offsets = new StringBuilder();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          offsets.append(line).append('\n');
        }
        return new BatchMetadata(meta.path("batchWatermarkMs").asLong(0), meta.path("batchTimestampMs").asLong(0),
            offsets.toString());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
