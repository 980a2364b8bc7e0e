package io.tidemark.stream;

import static io.tidemark.core.CommitKeys.BATCH_ID;
import static io.tidemark.core.CommitKeys.QUERY_ID;

import io.tidemark.config.TableName;
import io.tidemark.core.BatchColumns;
import io.tidemark.fence.AsLoaded;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;

/**
 * The stream-batches table: a row per micro-batch of every stream run ({@link BatchRecord}).
 *
 * <p>A run's records are appended when the run ends (those of {@code stream all}'s runs when the last one ends), in
 * one commit written on the driver (no Spark job), keyed by query and batch id as the batches' data is: the commit's
 * summary carries, per query, the newest batch recorded ({@link Provenance#ofRecords}), and a batch at or below the
 * newest one the table's history holds for its query is not appended again. A batch Spark runs again (its checkpoint commit was lost, or the process
 * died after its data commits) therefore keeps one row. Spark's progress of a batch exists only once the batch is
 * done, so its row cannot go into the commit of its data; a run that dies (or fails) records nothing, and the next
 * run of the stream first records the batches the checkpoint committed since the last one recorded, from what the
 * checkpoint and their commits tell ({@link BatchRecord#recovered}). No batch is recorded twice, and none is left
 * out while the checkpoint still holds it.
 */
public final class StreamBatches {
  private StreamBatches() {}

  /**
   * Commits of one JVM to the same table take turns: two at once would conflict in the catalog and be retried.
   */
  private static final Map<String, Object> TURNS = new java.util.concurrent.ConcurrentHashMap<>();

  /** Records the run's batches, and those a run before it left unrecorded, in the stream's table; how many. */
  public static int append(SparkSession spark, StreamSpec stream, RunReport run) {
    Recorder recorder = new Recorder(spark, stream.batches());
    recorder.add(stream, run);
    return recorder.commit();
  }

  /**
   * Records several runs of streams that share a stream-batches table in one commit: each run's rows go into the
   * commit's data file as the run ends, and the commit follows the last one ({@code stream all}: one commit for its
   * five streams, not five one after the other, and only the commit is left once the last stream ends).
   */
  public static final class Recorder {
    private final SparkSession spark;
    private final TableName batches;
    private final EarlyLoad<DriverWrites.Appender> loading;
    private DriverWrites.Appender rows;
    private final Map<String, Long> newestPerQuery = new LinkedHashMap<>();
    private final List<String> streams = new ArrayList<>();
    private final TreeSet<Integer> arrivals = new TreeSet<>();
    private int count;

    /**
     * Starts loading the table at once, in a thread of its own: for {@code stream all} that is while the streams
     * run, so that a run ending finds it loaded. The commit starts from that version ({@link AsLoaded}): the
     * catalog refuses it when another process recorded in the table since, and Iceberg retries it from a fresh one.
     */
    public Recorder(SparkSession spark, TableName batches) {
      this.spark = spark;
      this.batches = batches;
      this.loading = new EarlyLoad<>(batches.toString(),
          () -> new DriverWrites.Appender(AsLoaded.of(IcebergTables.load(spark, batches)), BatchColumns.SCHEMA));
    }

    /** The run's batches, and those a run of the stream before it left unrecorded, that the table has not. */
    public synchronized void add(StreamSpec stream, RunReport run) {
      if (!stream.batches().equals(batches)) {
        throw new IllegalArgumentException(stream.name() + " records in " + stream.batches() + ", not " + batches);
      }
      List<BatchRecord> records = run.records();
      String checkpoint = stream.checkpoint();
      // a run with no batch of its own may still follow one that died unrecorded
      long checkpointed = records.isEmpty() ? OffsetLog.lastCommitted(spark, checkpoint) : -1;
      if (records.isEmpty() && checkpointed < 0) {
        return;
      }
      String queryId = records.isEmpty() ? OffsetLog.queryId(spark, checkpoint) : records.get(0).queryId();
      if (queryId == null) {
        return;
      }
      if (rows == null) {
        rows = loaded();
      }
      long recorded = Provenance.lastRecordedBatch(rows.table(), queryId);
      long firstOfRun = records.isEmpty() ? checkpointed + 1 : records.get(0).batchId();
      List<BatchRecord> fresh = new ArrayList<>();
      if (firstOfRun > recorded + 1) {
        fresh.addAll(recover(spark, stream, run, queryId, recorded + 1, firstOfRun - 1));
      }
      records.stream().filter(r -> r.batchId() > recorded).forEach(fresh::add);
      if (fresh.isEmpty()) {
        return;
      }
      rows.add(fresh.stream().map(BatchRecord::values).toList());
      newestPerQuery.put(queryId, fresh.get(fresh.size() - 1).batchId());
      streams.add(run.stream());
      fresh.forEach(r -> {
        if (r.arrival() != null) {
          arrivals.add(r.arrival());
        }
      });
      count += fresh.size();
    }

    private DriverWrites.Appender loaded() {
      return loading.get();
    }

    /** Commits what the runs added, in one snapshot (none when they added nothing); how many rows. */
    public synchronized int commit() {
      if (count == 0) {
        return 0;
      }
      synchronized (TURNS.computeIfAbsent(batches.toString(), k -> new Object())) {
        rows.commit(Provenance.ofRecords(streams, newestPerQuery, BatchArrivals.describe(arrivals)));
      }
      return count;
    }
  }

  /** Every record of the table, in the order the batches started. */
  public static List<BatchRecord> read(SparkSession spark, TableName table) {
    return spark.table(table.sql()).orderBy(BatchColumns.STARTED_AT.name(), BatchColumns.STREAM.name(),
        BatchColumns.BATCH_ID.name()).collectAsList().stream().map(r -> BatchRecord.of(SparkRows.fields(r))).toList();
  }

  /**
   * Records of the batches {@code from}..{@code to} of the query that the checkpoint committed and still holds:
   * their arrivals, times and watermarks from the checkpoint, their rows and snapshots from the commits of the
   * stream's tables that carry their query and batch id.
   */
  private static List<BatchRecord> recover(SparkSession spark, StreamSpec stream, RunReport run, String queryId,
                                           long from, long to) {
    String checkpoint = stream.checkpoint();
    long retained = OffsetLog.firstPlanned(spark, checkpoint);
    Map<Long, Map<TableName, Snapshot>> commits = new HashMap<>();
    for (TableName t : stream.sideTable() == null ? List.of(stream.table())
        : List.of(stream.table(), stream.sideTable())) {
      for (Snapshot s : SnapshotUtil.currentAncestors(IcebergTables.load(spark, t))) {
        String batch = s.summary().get(BATCH_ID);
        if (queryId.equals(s.summary().get(QUERY_ID)) && batch != null) {
          commits.computeIfAbsent(Long.parseLong(batch), b -> new LinkedHashMap<>()).putIfAbsent(t, s);
        }
      }
    }
    boolean raw = stream.kind() == io.tidemark.pipeline.StreamDef.Kind.RAW;
    String unit = run.lateUnit();
    List<BatchRecord> out = new ArrayList<>();
    for (long b = Math.max(from, retained); b <= to; b++) {
      long committedAt = OffsetLog.committedAtMs(spark, checkpoint, b);
      if (committedAt < 0) {
        continue;
      }
      OffsetLog.BatchMetadata meta = OffsetLog.read(spark, checkpoint, b);
      Map<String, Long> written = new LinkedHashMap<>();
      Map<String, Long> snapshots = new LinkedHashMap<>();
      long quarantined = 0;
      for (Map.Entry<TableName, Snapshot> e : commits.getOrDefault(b, Map.of()).entrySet()) {
        long rows = Long.parseLong(e.getValue().summary().getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"));
        written.put(e.getKey().toString(), rows);
        snapshots.put(e.getKey().toString(), e.getValue().snapshotId());
        if (raw && e.getKey().equals(stream.sideTable())) {
          quarantined += rows;
        }
      }
      // what a batch read is told by its offsets and those of the batch before it
      String arrivals = b == 0 || b - 1 >= retained ? BatchArrivals.of(spark, checkpoint, b) : "";
      Instant before = stream.watermark() == null ? null : epochAsNull(meta.watermarkMs());
      Instant after = stream.watermark() == null ? null
          : epochAsNull(OffsetLog.nextWatermarkMs(spark, checkpoint, b));
      // every line of a raw archive's input is archived or quarantined
      Long input = raw ? written.values().stream().mapToLong(Long::longValue).sum() : null;
      out.add(new BatchRecord(run.stream(), queryId, null, b, BatchArrivals.newest(arrivals),
          arrivals.isEmpty() ? null : arrivals, Instant.ofEpochMilli(meta.timestampMs()),
          Instant.ofEpochMilli(committedAt), input, written, quarantined, null, null, unit, null, null, null, before, after,
          null, null, null, null, null, null, snapshots, List.of(), true));
    }
    return out;
  }

  private static Instant epochAsNull(long ms) {
    return ms == 0 ? null : Instant.ofEpochMilli(ms);
  }
}
