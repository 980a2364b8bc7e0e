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
 * Reads a query's offset log in its checkpoint. Spark writes {@code offsets/<batch>} before it runs the batch;
 * its metadata line holds the event-time watermark the batch uses (to drop late rows and to finalize
 * windows) and the batch timestamp. Those are the provenance a commit carries.
 */
final class OffsetLog {
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
