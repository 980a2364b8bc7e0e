package io.tidemark.fence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Reads a query's offset log (and its commit log) in its checkpoint, and plans a batch in it. Spark writes
 * {@code offsets/<batch>} before it runs the batch; its metadata line holds the event-time watermark the batch uses (to
 * drop late rows and to finalize windows) and the batch timestamp. Those are the provenance a commit carries.
 *
 * <p>Relies on Spark's checkpoint format, which is not API: {@code offsets/<batch>} and {@code commits/<batch>} files
 * named by the batch, each a version line ({@code v1}), a line of JSON metadata ({@code batchWatermarkMs},
 * {@code batchTimestampMs}; {@code nextBatchWatermarkMs} in a commit), then, in an offset entry, a line per source (the
 * file source's {@code {"logOffset":N}}); the query's id in {@code metadata}; and that a restarted query runs a batch
 * planned in the offset log but not committed first, with that entry's watermark.
 */
public final class OffsetLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OffsetLog() {}

  /** The batch's watermark, its timestamp (when it was planned) and its source offsets (the lines after the metadata). */
  public record BatchMetadata(long watermarkMs, long timestampMs, String sourceOffsets) {}

  /**
   * Whether the batch reads no new input: its source offsets equal the previous batch's. Spark runs such a
   * batch only to move the watermark on (evict state, emit finalized windows).
   */
  public static boolean noNewData(SparkSession spark, String checkpoint, long batchId) {
    return batchId > 0 && read(spark, checkpoint, batchId).sourceOffsets()
        .equals(read(spark, checkpoint, batchId - 1).sourceOffsets());
  }

  /**
   * The watermark of the newest batch the checkpoint's commit log holds: every window ending at or before it has
   * been emitted, every event at or before it has been dropped or kept for good. Empty without a committed batch.
   */
  public static java.util.Optional<java.time.Instant> committedWatermark(SparkSession spark, String checkpoint) {
    long last = lastCommitted(spark, checkpoint);
    return last < 0 ? java.util.Optional.empty()
        : java.util.Optional.of(java.time.Instant.ofEpochMilli(read(spark, checkpoint, last).watermarkMs()));
  }

  /** The newest batch the checkpoint's commit log holds, or -1 when none is committed. */
  public static long lastCommitted(SparkSession spark, String checkpoint) {
    return newest(spark, new Path(checkpoint, "commits"));
  }

  /** The newest batch the checkpoint's offset log holds (planned, maybe not committed), or -1 when none. */
  public static long lastPlanned(SparkSession spark, String checkpoint) {
    return newest(spark, new Path(checkpoint, "offsets"));
  }

  /** The oldest batch the checkpoint's offset log still holds (it keeps the newest few), or -1 when none. */
  public static long firstPlanned(SparkSession spark, String checkpoint) {
    return batches(spark, new Path(checkpoint, "offsets")).stream().mapToLong(Long::longValue).min().orElse(-1);
  }

  private static long newest(SparkSession spark, Path log) {
    return batches(spark, log).stream().mapToLong(Long::longValue).max().orElse(-1);
  }

  private static List<Long> batches(SparkSession spark, Path log) {
    try {
      FileSystem fs = log.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(log)) {
        return List.of();
      }
      List<Long> out = new java.util.ArrayList<>();
      for (org.apache.hadoop.fs.FileStatus f : fs.listStatus(log)) {
        String n = f.getPath().getName();
        if (n.matches("\\d+")) {
          out.add(Long.parseLong(n));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log, e);
    }
  }

  /** When the checkpoint committed the batch: its commit log entry's modification time, or -1 without one. */
  public static long committedAtMs(SparkSession spark, String checkpoint, long batchId) {
    Path file = new Path(checkpoint, "commits/" + batchId);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      return fs.exists(file) ? fs.getFileStatus(file).getModificationTime() : -1;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The id of the query the checkpoint belongs to (its {@code metadata} file), or null before its first run. */
  public static String queryId(SparkSession spark, String checkpoint) {
    Path file = new Path(checkpoint, "metadata");
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(file)) {
        return null;
      }
      try (FSDataInputStream in = fs.open(file)) {
        return JSON.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8)).path("id").asText(null);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * The watermark Spark computed from a committed batch's event times, for the batches after it: its commit log
   * entry ({@code commits/<batch>}) holds it.
   */
  public static long nextWatermarkMs(SparkSession spark, String checkpoint, long batchId) {
    try {
      String meta = entry(spark, checkpoint, "commits", batchId).get(1);
      return JSON.readTree(meta).path("nextBatchWatermarkMs").asLong(0);
    } catch (IOException e) {
      throw new UncheckedIOException("commits/" + batchId + " of " + checkpoint + ": not JSON", e);
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

  public static BatchMetadata read(SparkSession spark, String checkpoint, long batchId) {
    List<String> lines = entry(spark, checkpoint, "offsets", batchId);
    try {
      JsonNode meta = JSON.readTree(lines.get(1));
      StringBuilder offsets = new StringBuilder();
      lines.subList(2, lines.size()).forEach(l -> offsets.append(l).append('\n'));
      return new BatchMetadata(meta.path("batchWatermarkMs").asLong(0), meta.path("batchTimestampMs").asLong(0),
          offsets.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("offsets/" + batchId + " of " + checkpoint + ": not JSON", e);
    }
  }

  /**
   * The lines of entry {@code batchId} of the checkpoint's {@code log} ({@code offsets} or {@code commits}): a
   * version line, a line of JSON metadata, then (offsets) a line per source.
   */
  public static List<String> entry(SparkSession spark, String checkpoint, String log, long batchId) {
    Path file = new Path(checkpoint, log + "/" + batchId);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      try (FSDataInputStream in = fs.open(file)) {
        List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        if (lines.size() < 2 || !lines.get(0).startsWith("v")) {
          throw new IllegalStateException(file + ": not an entry of a " + log + " log");
        }
        return lines;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * Plans the batch after {@code committed} as Spark plans a batch without new data: an offset log entry with the same
   * source offsets as {@code committed}'s (no new input) and {@code watermarkMs}. Written whole or not at all (a rename
   * into place): Spark reads every entry that has a batch number for a name.
   */
  public static void planNoDataBatch(SparkSession spark, String checkpoint, long committed, long watermarkMs) {
    Path planned = new Path(checkpoint, "offsets/" + (committed + 1));
    Path tmp = new Path(checkpoint, "offsets/." + (committed + 1) + ".tidemark.tmp");
    try {
      FileSystem fs = planned.getFileSystem(spark.sparkContext().hadoopConfiguration());
      List<String> lines = entry(spark, checkpoint, "offsets", committed);
      // version, metadata, then one line of offsets per source: the same sources, nothing new in them
      ObjectNode meta = (ObjectNode) JSON.readTree(lines.get(1));
      meta.put("batchWatermarkMs", watermarkMs);
      meta.put("batchTimestampMs", System.currentTimeMillis());
      StringBuilder entry = new StringBuilder(lines.get(0)).append('\n').append(JSON.writeValueAsString(meta));
      lines.subList(2, lines.size()).forEach(l -> entry.append('\n').append(l));
      try (OutputStream out = fs.create(tmp, true)) {
        out.write(entry.toString().getBytes(StandardCharsets.UTF_8));
      }
      if (!fs.rename(tmp, planned)) {
        throw new IOException("rename to " + planned + " returned false");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan the no-data batch " + planned, e);
    }
  }
}
