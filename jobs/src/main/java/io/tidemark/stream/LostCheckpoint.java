package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;

import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A stream whose checkpoint has no batch while its table holds batches it committed: the checkpoint was lost (a new
 * machine, a cleaned disk, moved aside). A stream on a new checkpoint is a new query, which reads every landed arrival
 * again, and the exactly-once check of its tables, which goes by query, cannot tell its batches from the old ones.
 * What each stream does then:
 * <ul>
 *   <li>the raw archives keep no state, and a landed file is immutable: they skip the files the archive or the
 *       quarantine already holds ({@link #archivedFiles}), and take in the rest;</li>
 *   <li>the SCD2 stream keeps no state either: its change log settles what it reads again;</li>
 *   <li>dedup and the windowed counts keep state (the event ids seen, the open windows) that a new checkpoint lacks:
 *       they refuse to start over ({@link #refuse}), naming the recipe (restore the checkpoint, or rebuild the
 *       table).</li>
 * </ul>
 */
final class LostCheckpoint {
  static final String RECIPE = "docs/troubleshooting.md#a-lost-or-corrupt-checkpoint";

  private LostCheckpoint() {}

  /**
   * The newest arrival {@code table} holds from {@code stream}'s batches when the checkpoint has planned no batch
   * (empty otherwise, and when the table holds none of its batches: a first run). A checkpoint with a batch planned
   * and not committed is not lost: its run was killed after the batch's commit to the table, which its rerun skips.
   */
  static Optional<Integer> of(SparkSession spark, String stream, String checkpoint, TableName table) {
    if (OffsetLog.lastCommitted(spark, checkpoint) >= 0 || OffsetLog.lastPlanned(spark, checkpoint) >= 0) {
      return Optional.empty();
    }
    if (!spark.catalog().tableExists(table.toString())) {
      return Optional.empty(); // a table not there is for the stream's own preflight to name, in its words
    }
    Table t = IcebergTables.load(spark, table);
    boolean any = false;
    for (Snapshot s : SnapshotUtil.currentAncestors(t)) {
      if (stream.equals(s.summary().get(CommitKeys.STREAM))) {
        any = true;
        SortedSet<Integer> read = BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS));
        if (!read.isEmpty()) {
          return Optional.of(read.last());
        }
      }
    }
    return any ? Optional.of(0) : Optional.empty();
  }

  /** A stream with state that would start over: one line naming what it holds and the recipe. */
  static void refuse(SparkSession spark, String stream, String checkpoint, TableName table) {
    of(spark, stream, checkpoint, table).ifPresent(arrival -> {
      throw new StreamException(stream + ": its checkpoint " + checkpoint + " has no batch, while " + table
          + " holds its batches" + (arrival > 0 ? " up to arrival " + arrival : "") + ": started over, it would read "
          + "every landed arrival again and write what it wrote before; restore the checkpoint from the backup, or "
          + "rebuild the table on a new checkpoint; see " + RECIPE);
    });
  }

  /**
   * The landed files of {@code dataset} whose lines the archive or the quarantine already holds, when the raw
   * stream's checkpoint was lost: its batches skip them. Empty (nothing to skip) on a checkpoint that goes on.
   */
  static Set<String> archivedFiles(SparkSession spark, String stream, String checkpoint, TableName raw,
                                   TableName rejected, String dataset) {
    Optional<Integer> lost = of(spark, stream, checkpoint, raw);
    if (lost.isEmpty()) {
      return Set.of();
    }
    String file = Ingest.SOURCE_FILE.name();
    Set<String> out = new HashSet<>();
    for (Row r : spark.table(raw.sql()).select(col(file)).distinct().collectAsList()) {
      out.add(r.getString(0));
    }
    for (Row r : spark.table(rejected.sql()).where(col(Quarantine.DATASET.name()).equalTo(dataset)).select(col(file))
        .distinct().collectAsList()) {
      out.add(r.getString(0));
    }
    org.slf4j.LoggerFactory.getLogger(LostCheckpoint.class).warn("{}: its checkpoint {} has no batch while {} holds "
        + "its batches: the {} file(s) it archived or quarantined are skipped", stream, checkpoint, raw, out.size());
    return out;
  }
}
