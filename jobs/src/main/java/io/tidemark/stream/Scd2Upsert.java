package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The company dimension as SCD2, from a stream of changes: {@code foreachBatch}, and per micro-batch the dimension
 * kept equal to the history rebuilt from every change applied so far (see {@link io.tidemark.core.Scd2History}), so that several
 * changes of a company in one batch chain, and a change that comes out of order splits the version it falls in.
 * Per batch:
 * <ol>
 *   <li>the batch's changes not yet in the change log are appended to it (a change applied once stays once);
 *   <li>the history of the companies the batch touches is rebuilt from the log and compared with the
 *       dimension; only the difference ({@link io.tidemark.core.Scd2Difference}) is written, keyed on (company_id, valid_from), so a
 *       replay, or all input again with a new checkpoint, finds nothing to do and commits nothing.
 * </ol>
 * A small batch (the usual arrival: up to 10k companies and 100k changes) is settled on the driver
 * ({@link Scd2OnDriver}); a larger one in Spark ({@link Scd2InSpark}): one job on two engines ({@link Scd2Apply}).
 * A change at or before the batch's watermark on change_ts (the newest change seen before, less the SCD2
 * watermark delay) is late: it is left to the restatement job, which finds it in the raw archive. A repeated change
 * line is applied once, since the log already holds it; so the stream keeps no state of its own.
 */
public final class Scd2Upsert {
  public static final String NAME = "scd2";

  /**
   * Companies a batch touches at most to be settled on the driver, and for their rows to be picked with an IN list
   * (which Iceberg prunes files and the log's buckets with); beyond it, a broadcast join.
   */
  static final int IN_LIST_MAX = 10_000;
  /**
   * Changes a batch holds at most to be settled on the driver; its companies' rows in the log and the dimension
   * come along. A few MB of rows there save the dozen Spark jobs (and their fixed costs) of doing it in Spark.
   */
  private static final int DRIVER_MAX_ROWS = 100_000;
  /**
   * Input a batch may have at most (Spark's size estimate of its files) to be collected to the driver at once,
   * before its rows and companies are counted: a few MB of change lines.
   */
  private static final long DRIVER_MAX_BYTES = 16L << 20;

  private Scd2Upsert() {}

  public static RunReport run(SparkSession spark, String source, TableName dimension,
                              TableName changeLog, String checkpoint, Duration watermark) {
    return run(spark, source, dimension, changeLog, checkpoint, watermark, CrashPoints.NONE);
  }

  public static RunReport run(SparkSession spark, String source, TableName dimension,
                              TableName changeLog, String checkpoint, Duration watermark, CrashPoints crash) {
    return run(spark, source, dimension, changeLog, checkpoint, watermark, crash, CompanyChanges.FEED);
  }

  /**
   * The same for the companies as declared when the run starts ({@code companies}: a field promoted into the feed is
   * logged, and a change of it makes a new version). The stream keeps no state but the watermark in its offset log,
   * which a new column leaves alone: the same checkpoint goes on.
   */
  public static RunReport run(SparkSession spark, String source, TableName dimension,
                              TableName changeLog, String checkpoint, Duration watermark, CrashPoints crash,
                              FeedSchema companies) {
    Preflight.check(spark, source, TableCatalog.companies(dimension, companies),
        TableCatalog.companyChanges(changeLog, companies));
    // no stateful operator: the batch's own late filter and the change log (a change applied once is not applied
    // again) do what dropDuplicatesWithinWatermark did, without its state store and the trailing no-data batch
    // it needs to evict; Spark still tracks the watermark and records it in the offset log
    Dataset<Row> changes = SparkScd2History.normalize(LineFormat.of(companies).valid(spark, source), companies)
        .withWatermark(CompanyChanges.CHANGE_TS.name(), Durations.spark(watermark));
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint, crash);
    return StreamRun.run(NAME, "change", StreamRun.availableNow(changes, checkpoint,
        (batch, id) -> upsert(batch, id, dimension, changeLog, committer, companies)), committer);
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
                             BatchCommitter committer, FeedSchema companies) {
    SparkSession spark = batch.sparkSession();
    // as the stateful operators do: a change at or before the batch's watermark is late, left to the restatement
    Timestamp watermark = new Timestamp(committer.watermarkMs(spark, batchId));
    Dataset<Row> changes = batch.select(SparkRows.columns(companies.columns()));
    List<io.tidemark.core.Column> promoted = companies.beyond(CompanyChanges.FEED);
    Scd2Apply.Commits commits = exactlyOnce(spark, batchId, dimension, changeLog, committer);
    if (changes.queryExecution().optimizedPlan().stats().sizeInBytes().longValue() <= DRIVER_MAX_BYTES) {
      List<CompanyChange> all = changes.collectAsList().stream().map(r -> CompanyChange.of(SparkRows.fields(r), promoted))
          .toList();
      List<CompanyChange> onTime = all.stream().filter(c -> c.changeTs().isAfter(watermark.toInstant())).toList();
      long keys = onTime.stream().map(CompanyChange::companyId).distinct().count();
      if (keys <= IN_LIST_MAX && onTime.size() <= DRIVER_MAX_ROWS) {
        committer.dropped(batchId, all.size() - onTime.size(), 0);
        if (!onTime.isEmpty()) {
          Scd2Apply.Applied applied = new Scd2OnDriver(IcebergTables.load(spark, changeLog),
              IcebergTables.load(spark, dimension), companies).apply(onTime, commits);
          committer.dropped(batchId, 0, onTime.size() - applied.fresh());
        }
        return;
      }
    }
    String company = CompanyChanges.COMPANY_ID.name();
    Dataset<Row> onTime = changes.where(col(CompanyChanges.CHANGE_TS.name()).gt(lit(watermark))).persist();
    Dataset<Row> incoming = onTime.distinct().persist();
    try {
      long arrived = changes.count();
      long inTime = onTime.count();
      List<Row> perCompany = incoming.groupBy(company).count().collectAsList();
      committer.dropped(batchId, arrived - inTime,
          inTime - perCompany.stream().mapToLong(r -> r.<Long>getAs("count")).sum());
      if (!perCompany.isEmpty()) {
        new Scd2InSpark(dimension, changeLog, companies).apply(new Scd2InSpark.Batch(incoming,
            perCompany.stream().map(r -> r.getAs(company)).toArray()), commits);
      }
    } finally {
      incoming.unpersist();
      onTime.unpersist();
    }
  }
}
