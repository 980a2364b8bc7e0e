package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.lakehouse.TableCatalog;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The company dimension as SCD2, from a stream of changes: {@code foreachBatch}, and per micro-batch one
 * Iceberg MERGE INTO the dimension. The dimension is kept equal to the history rebuilt from every change
 * applied so far (see {@link Scd2History}), so that several changes of a company in one batch chain, and a
 * change that comes out of order splits the version it falls in. Per batch:
 * <ol>
 *   <li>the batch's changes not yet in the change log are appended to it (a change applied once stays once);
 *   <li>the history of the companies the batch touches is rebuilt from the log and compared with the
 *       dimension; only the difference is merged, keyed on (company_id, valid_from), so a replay, or all input
 *       again with a new checkpoint, finds nothing to do and commits nothing.
 * </ol>
 * Upstream, a watermark on change_ts (a day by default) bounds the state that drops repeated change lines; a
 * change later than that is left to the restatement job, which finds it in the raw archive.
 */
public final class Scd2Upsert {
  public static final String NAME = "scd2";
  private static final String[] CHANGE = Schemas.COMPANY_CHANGE.fieldNames();

  private Scd2Upsert() {}

  /**
   * With a day of watermark and the change log next to the table, {@code <ns>.<table>_changes} (the name
   * bootstrap gives it for the default dimension), created when missing.
   */
  public static RunReport run(SparkSession spark, String sourceDir, String table, String checkpoint) {
    TableName dim = TableName.parse(table);
    TableName log = changeLogOf(dim);
    spark.sql(TableCatalog.companyChanges(log).createSql());
    return run(spark, sourceDir, dim, log, checkpoint, Duration.ofDays(1));
  }

  /** Where the change log of a dimension lives unless configured otherwise. */
  public static TableName changeLogOf(TableName dimension) {
    return new TableName(dimension.namespace(), dimension.table() + "_changes");
  }

  public static RunReport run(SparkSession spark, String source, TableName dimension, TableName changeLog,
                              String checkpoint, Duration watermark) {
    Preflight.check(spark, source, TableCatalog.companies(dimension), TableCatalog.companyChanges(changeLog));
    Dataset<Row> changes = Scd2History.normalize(LineFormat.COMPANY_CHANGES.valid(spark, source))
        .withWatermark("change_ts", Durations.spark(watermark))
        .dropDuplicatesWithinWatermark(CHANGE);
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint);
    return StreamRun.run(NAME, "late change(s)", StreamRun.availableNow(changes, checkpoint,
        (batch, id) -> upsert(batch, id, dimension, changeLog, committer)), committer);
  }

  /**
   * Companies a batch touches at most for their rows to be picked with an IN list (which Iceberg prunes files
   * and the log's buckets with); beyond it, a broadcast join.
   */
  private static final int IN_LIST_MAX = 10_000;

  private static void upsert(Dataset<Row> batch, long batchId, TableName dimension, TableName changeLog,
                             BatchCommitter committer) {
    SparkSession spark = batch.sparkSession();
    Dataset<Row> incoming = batch.persist();
    Dataset<Row> logged = null;
    Dataset<Row> current = null;
    try {
      // runs the batch's plan once (the dedup state moves on) and brings the touched companies to the driver;
      // a batch without changes has nothing to merge
      List<Row> keys = incoming.select("company_id").distinct().collectAsList();
      if (keys.isEmpty()) {
        return;
      }
      // each table is read once per batch, for the touched companies only: the log's changes (what is applied
      // already, and with the batch's new changes the history) and the dimension's versions
      logged = touched(spark, spark.table(changeLog.sql()).select(CHANGE[0], CHANGE[1], CHANGE[2], CHANGE[3],
          CHANGE[4]), keys);
      current = touched(spark, spark.table(dimension.sql())
          .select(Schemas.columns(Schemas.COMPANY_VERSION)), keys);
      Dataset<Row> fresh = incoming.join(logged, sameChange(incoming, logged), "left_anti");
      committer.commit(batchId, changeLog, fresh, BatchCommitter.Output.SMALL, rows -> append(rows, changeLog.sql()));
      // the log after the append holds exactly logged + fresh (when the append was done before a crash, fresh is
      // empty and logged holds it); a change in both would count once, the rebuild settles equal changes
      Dataset<Row> history = Scd2History.rebuild(logged.unionByName(fresh));
      committer.commit(batchId, dimension, difference(history, current), BatchCommitter.Output.SMALL,
          diff -> merge(diff, dimension.sql()));
    } finally {
      incoming.unpersist();
      if (logged != null) {
        logged.unpersist();
      }
      if (current != null) {
        current.unpersist();
      }
    }
  }

  /**
   * The rows of {@code table} of these companies, read once: for a small batch brought to the driver (a local
   * relation, which later writes to the table cannot invalidate), else cached.
   */
  private static Dataset<Row> touched(SparkSession spark, Dataset<Row> table, List<Row> keys) {
    if (keys.size() <= IN_LIST_MAX) {
      Dataset<Row> picked = table.where(col("company_id").isin(keys.stream().map(r -> r.get(0)).toArray()));
      return spark.createDataFrame(picked.collectAsList(), picked.schema());
    }
    return table.join(broadcast(spark.createDataFrame(keys, keys.get(0).schema())), "company_id").persist();
  }

  /** The changes (normalized) that the log does not hold yet. */
  public static Dataset<Row> unlogged(Dataset<Row> changes, String logSql) {
    SparkSession spark = changes.sparkSession();
    Dataset<Row> keys = changes.select("company_id").distinct();
    Dataset<Row> logged = spark.table(logSql).join(broadcast(keys), "company_id");
    return changes.join(logged, sameChange(changes, logged), "left_anti");
  }

  /**
   * What the dimension must change for these companies to equal their history rebuilt from the log: versions
   * to insert or correct ({@code op = 'upsert'}) and versions to remove ({@code op = 'delete'}).
   */
  public static Dataset<Row> difference(Dataset<Row> keys, String logSql, String dimensionSql) {
    SparkSession spark = keys.sparkSession();
    Dataset<Row> history = Scd2History.rebuild(spark.table(logSql).join(broadcast(keys), "company_id"));
    Dataset<Row> current = spark.table(dimensionSql).join(broadcast(keys), "company_id")
        .select(Schemas.columns(Schemas.COMPANY_VERSION));
    return difference(history, current);
  }

  /** The same, from the rebuilt history and the dimension's versions of the same companies. */
  static Dataset<Row> difference(Dataset<Row> history, Dataset<Row> current) {
    Dataset<Row> upserts = history.except(current).withColumn("op", lit("upsert"));
    Dataset<Row> gone = current.select("company_id", "valid_from")
        .except(history.select("company_id", "valid_from"))
        .join(current, new String[] {"company_id", "valid_from"})
        .select(Schemas.columns(Schemas.COMPANY_VERSION))
        .withColumn("op", lit("delete"));
    return upserts.unionByName(gone);
  }

  private static Column sameChange(Dataset<Row> a, Dataset<Row> b) {
    Column same = null;
    for (String c : CHANGE) {
      Column eq = a.col(c).eqNullSafe(b.col(c));
      same = same == null ? eq : same.and(eq);
    }
    return same;
  }

  /** Appends changes to the log, given as a Spark SQL name (a table, or a table on a branch). */
  public static void append(Dataset<Row> rows, String logSql) {
    try {
      rows.select(Schemas.columns(Schemas.COMPANY_CHANGE)).writeTo(logSql).append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new StreamException("table " + logSql + " disappeared while the stream ran");
    }
  }

  /** One MERGE: versions to insert or correct, keyed on (company_id, valid_from), and versions to remove. */
  public static void merge(Dataset<Row> diff, String dimensionSql) {
    String view = "tidemark_scd2_diff";
    diff.createOrReplaceTempView(view);
    diff.sparkSession().sql("MERGE INTO " + dimensionSql + " t USING " + view + " s "
        + "ON t.company_id = s.company_id AND t.valid_from = s.valid_from "
        + "WHEN MATCHED AND s.op = 'delete' THEN DELETE "
        + "WHEN MATCHED THEN UPDATE SET t.name = s.name, t.tier = s.tier, t.valid_to = s.valid_to, "
        + "t.is_current = s.is_current "
        + "WHEN NOT MATCHED AND s.op = 'upsert' THEN INSERT (company_id, name, tier, valid_from, valid_to, is_current) "
        + "VALUES (s.company_id, s.name, s.tier, s.valid_from, s.valid_to, s.is_current)");
  }
}
