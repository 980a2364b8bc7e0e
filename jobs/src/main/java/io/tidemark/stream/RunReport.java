package io.tidemark.stream;

import io.tidemark.config.TableName;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one availableNow run of a stream did, summed over the records of its micro-batches ({@link BatchRecord}, the
 * rows of the stream-batches table): lines read, rows the watermark dropped ({@code lateUnit} says what they are:
 * records for a dedup, partial windows per window and group for an aggregate, which aggregates before it
 * drops, changes for an SCD2 stream), duplicates dropped, rows written per table, the watermark at the end, state size,
 * and where the time went (Spark's progress durations summed over the batches: addBatch is the work and the Iceberg
 * commits, the rest bookkeeping).
 */
public record RunReport(String stream, int batches, long inputRows, long lateRowsDropped, String lateUnit,
                        long duplicatesDropped,
                        Map<TableName, Long> rowsWritten, int batchesAlreadyCommitted, Instant watermark,
                        long stateRows, long stateMemoryBytes, Map<String, Long> durationsMs, double seconds,
                        List<BatchRecord> records) {

  /**
   * The sums of {@code records} (in batch order): rows written by the batches this run committed (a replayed batch's
   * commits were made by an earlier attempt), the watermark the last batch ran with, the state after it.
   */
  public static RunReport of(String stream, String lateUnit, List<BatchRecord> records, Map<String, Long> durations,
                             double seconds) {
    long input = 0;
    long late = 0;
    long duplicates = 0;
    int replayed = 0;
    Map<TableName, Long> written = new LinkedHashMap<>();
    Instant watermark = null;
    long stateRows = 0;
    long stateBytes = 0;
    for (BatchRecord r : records) {
      input += BatchRecord.orZero(r.inputRows());
      late += BatchRecord.orZero(r.lateRowsDropped());
      duplicates += BatchRecord.orZero(r.duplicatesDropped());
      // a commit an earlier attempt made counts as skipped, not as written by this run
      replayed += r.replayedTables().size();
      r.rowsWritten().forEach((t, n) -> {
        if (!r.replayedTables().contains(t)) {
          written.merge(TableName.parse(t), n, Long::sum);
        }
      });
      if (r.watermarkBefore() != null) {
        watermark = r.watermarkBefore();
      }
      if (r.stateRows() != null) {
        stateRows = r.stateRows();
        stateBytes = BatchRecord.orZero(r.stateBytes());
      }
    }
    return new RunReport(stream, records.size(), input, late, lateUnit, duplicates, written, replayed, watermark,
        stateRows, stateBytes, durations, seconds, List.copyOf(records));
  }

  public long written(TableName table) {
    return rowsWritten.getOrDefault(table, 0L);
  }

  /** One line for people. */
  public String summary() {
    StringBuilder sb = new StringBuilder(stream).append(": ").append(batches).append(" batch(es), ")
        .append(inputRows).append(" lines read");
    rowsWritten.forEach((t, n) -> sb.append(", ").append(n).append(" row(s) into ").append(t));
    if (lateRowsDropped > 0) {
      sb.append(", ").append(lateRowsDropped).append(" late ").append(lateUnit).append("(s) dropped");
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
