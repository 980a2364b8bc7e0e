package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.core.DimensionSchema;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * A dimension as SCD2, from a stream of changes: {@code foreachBatch}, and per micro-batch the dimension kept equal to
 * the history rebuilt from every change applied so far (see {@link io.tidemark.core.Scd2History}), so that several
 * changes of a key in one batch chain, and a change that comes out of order splits the version it falls in. Per batch:
 * <ol>
 *   <li>the batch's changes not yet in the change log are appended to it (a change applied once stays once);
 *   <li>the history of the keys the batch touches is rebuilt from the log and compared with the dimension; only the
 *       difference ({@link io.tidemark.core.Scd2Difference}) is written, keyed on (key, valid_from), so a replay, or
 *       all input again with a new checkpoint, finds nothing to do and commits nothing.
 * </ol>
 * The engine that settles a batch is chosen by {@link Scd2Engines}: a small batch (the usual arrival) on the driver
 * ({@link Scd2OnDriver}), a larger one in Spark ({@link Scd2InSpark}): one job on two engines ({@link Scd2Apply}).
 * A change at or before the batch's watermark on the change time (the newest change seen before, less the
 * dimension's watermark delay) is late: it is left to the restatement job, which finds it in the raw archive. A
 * repeated change line is applied once, since the log already holds it; so the stream keeps no state of its own.
 */
public final class Scd2Upsert {
  /** Keys a batch touches at most for their rows to be picked with an IN list; beyond it, a broadcast join. */
  static final int IN_LIST_MAX = Scd2Engines.DRIVER_MAX_KEYS;

  private Scd2Upsert() {}

  /**
   * One availableNow run of the stream {@code name} for the dimension as declared when the run starts ({@code d}: a
   * field promoted into the feed is logged, and a change of it makes a new version). The stream keeps no state but
   * the watermark in its offset log, which a new column leaves alone: the same checkpoint goes on.
   */
  public static RunReport run(SparkSession spark, String name, String source, TableName dimension,
                              TableName changeLog, String checkpoint, Duration watermark, CrashPoints crash,
                              DimensionSchema d) {
    return run(spark, name, source, dimension, changeLog, checkpoint, watermark, crash, d, Judgement.none());
  }

  /**
   * The same, over the changes the feed's row expectations keep ({@code judgement}): a change dropped or held never
   * closes a version, so the history stays what the kept changes make.
   */
  public static RunReport run(SparkSession spark, String name, String source, TableName dimension,
                              TableName changeLog, String checkpoint, Duration watermark, CrashPoints crash,
                              DimensionSchema d, Judgement judgement) {
    Preflight.check(spark, source, TableCatalog.dimension(dimension, d), TableCatalog.changeLog(changeLog, d));
    // no stateful operator: the batch's own late filter and the change log (a change applied once is not applied
    // again) do what dropDuplicatesWithinWatermark did, without its state store and the trailing no-data batch
    // it needs to evict; Spark still tracks the watermark and records it in the offset log
    Dataset<Row> changes = SparkScd2History.normalize(LineFormat.of(d.feed(), judgement).valid(spark, source), d)
        .withWatermark(d.changeTime().name(), Durations.spark(watermark));
    BatchCommitter committer = new BatchCommitter(name, checkpoint, crash);
    return StreamRun.run(name, "change", StreamRun.availableNow(changes, checkpoint,
        (batch, id) -> upsert(batch, id, dimension, changeLog, committer, d)), committer);
  }

  /** The two commits of a batch's apply, each exactly once through the committer. */
  private static Scd2Apply.Commits exactlyOnce(SparkSession spark, long batchId, TableName dimension,
                                               TableName changeLog, BatchCommitter committer) {
    return new Scd2Apply.Commits() {
      @Override
      public void toLog(long rows, Consumer<Map<String, String>> write) {
        committer.commitCounted(spark, batchId, changeLog, rows, write);
      }

      @Override
      public void toDimension(long rows, Consumer<Map<String, String>> write) {
        committer.commitCounted(spark, batchId, dimension, rows, write);
      }
    };
  }

  private static void upsert(Dataset<Row> batch, long batchId, TableName dimension, TableName changeLog,
                             BatchCommitter committer, DimensionSchema d) {
    SparkSession spark = batch.sparkSession();
    // as the stateful operators do: a change at or before the batch's watermark is late, left to the restatement
    Timestamp watermark = new Timestamp(committer.watermarkMs(spark, batchId));
    Dataset<Row> changes = batch.select(SparkRows.columns(d.logged()));
    Scd2Apply.Commits commits = exactlyOnce(spark, batchId, dimension, changeLog, committer);
    if (Scd2Engines.mayFitTheDriver(changes.queryExecution().optimizedPlan().stats().sizeInBytes().longValue())) {
      List<Change> all = changes.collectAsList().stream().map(r -> d.change(SparkRows.fields(r))).toList();
      List<Change> onTime = all.stream().filter(c -> c.at().isAfter(watermark.toInstant())).toList();
      long keys = onTime.stream().map(Change::key).distinct().count();
      if (Scd2Engines.choose(onTime.size(), keys) == Scd2Engines.Engine.DRIVER) {
        committer.dropped(batchId, all.size() - onTime.size(), 0);
        if (!onTime.isEmpty()) {
          Scd2Apply.Applied applied = new Scd2OnDriver(IcebergTables.load(spark, changeLog),
              IcebergTables.load(spark, dimension), d).apply(onTime, commits);
          committer.dropped(batchId, 0, onTime.size() - applied.fresh());
        }
        return;
      }
    }
    String[] key = d.key().stream().map(io.tidemark.core.Column::name).toArray(String[]::new);
    Dataset<Row> onTime = changes.where(col(d.changeTime().name()).gt(lit(watermark))).persist();
    Dataset<Row> incoming = onTime.distinct().persist();
    try {
      long arrived = changes.count();
      long inTime = onTime.count();
      List<Row> perKey = incoming.groupBy(key[0], Arrays.copyOfRange(key, 1, key.length)).count().collectAsList();
      committer.dropped(batchId, arrived - inTime,
          inTime - perKey.stream().mapToLong(r -> r.<Long>getAs("count")).sum());
      if (!perKey.isEmpty()) {
        List<Row> keys = perKey.stream().map(r -> RowFactory.create(
            java.util.stream.IntStream.range(0, key.length).mapToObj(r::get).toArray())).toList();
        new Scd2InSpark(dimension, changeLog, d).apply(new Scd2InSpark.Batch(incoming, keys), commits);
      }
    } finally {
      incoming.unpersist();
      onTime.unpersist();
    }
  }
}
