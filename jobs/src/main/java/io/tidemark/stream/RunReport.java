package io.tidemark.stream;

import io.tidemark.config.TableName;
import java.time.Instant;
import java.util.Map;

/**
 * What one availableNow run of a stream did, summed over its micro-batches: lines read, rows the stateful
 * operator dropped behind the watermark ({@code lateUnit} says what they are: events for the dedup, partial
 * counts per window and company for the counts, which aggregate before they drop), duplicates dropped, rows
 * written per table, the watermark at the end, state size, and where the time went (Spark's progress
 * durations summed over the batches: addBatch is the work and the Iceberg commits, the rest bookkeeping).
 */
public record RunReport(String stream, int batches, long inputRows, long lateRowsDropped, String lateUnit,
                        long duplicatesDropped,
                        Map<TableName, Long> rowsWritten, int batchesAlreadyCommitted, Instant watermark,
                        long stateRows, long stateMemoryBytes, Map<String, Long> durationsMs, double seconds) {

  public long written(TableName table) {
    return rowsWritten.getOrDefault(table, 0L);
  }

  /** One line for people. */
  public String summary() {
    StringBuilder sb = new StringBuilder(stream).append(": ").append(batches).append(" batch(es), ")
        .append(inputRows).append(" lines read");
    rowsWritten.forEach((t, n) -> sb.append(", ").append(n).append(" row(s) into ").append(t));
    if (lateRowsDropped > 0) {
      sb.append(", ").append(lateRowsDropped).append(' ').append(lateUnit).append(" dropped");
    }
    if (duplicatesDropped > 0) {
      sb.append(", ").append(duplicatesDropped).append(" duplicate(s) dropped");
    }
    if (batchesAlreadyCommitted > 0) {
      sb.append(", ").append(batchesAlreadyCommitted).append(" batch(es) already committed, skipped");
    }
    if (watermark != null) {
      sb.append(", watermark ").append(watermark);
    }
    return sb.append(String.format(java.util.Locale.ROOT, " (%.1f s)", seconds)).toString();
  }
}
