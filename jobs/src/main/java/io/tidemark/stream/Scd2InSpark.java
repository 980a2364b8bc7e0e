package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;

import io.tidemark.config.TableName;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Schema;
import io.tidemark.lakehouse.spark.SparkCommits;
import io.tidemark.lakehouse.spark.SparkRows;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * A large SCD2 batch, settled in Spark: its keys' rows of the change log and the dimension read once and cached, the
 * unlogged changes appended, the difference merged ({@link SparkScd2History}, {@link SparkScd2Difference}: the core's
 * rules as plans, tested equal to them).
 */
final class Scd2InSpark implements Scd2Apply<Scd2InSpark.Batch> {
  /** The batch's on-time changes, distinct, and their keys (rows of the key's columns). */
  record Batch(Dataset<Row> incoming, List<Row> keys) {}

  private final TableName dimension;
  private final TableName changeLog;
  private final DimensionSchema d;

  /** For the dimension as declared when the job runs: a promoted attribute is logged and tracked too. */
  Scd2InSpark(TableName dimension, TableName changeLog, DimensionSchema d) {
    this.dimension = dimension;
    this.changeLog = changeLog;
    this.d = d;
  }

  @Override
  public Applied apply(Batch batch, Commits commits) {
    SparkSession spark = batch.incoming().sparkSession();
    Dataset<Row> touched = broadcast(spark.createDataFrame(batch.keys(), SparkRows.struct(new Schema(d.key()))));
    Dataset<Row> logged = pick(spark.table(changeLog.sql()).select(SparkRows.columns(d.logged())), touched,
        batch.keys()).persist();
    Dataset<Row> current = pick(spark.table(dimension.sql()).select(SparkRows.columns(d.version())), touched,
        batch.keys()).persist();
    Dataset<Row> fresh = Scd2ChangeLog.unlogged(batch.incoming(), logged).persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> diff = null;
    try {
      long appended = fresh.count();
      commits.toLog(appended, props -> SparkCommits.withSummary(props,
          () -> Scd2ChangeLog.append(fresh, changeLog.sql(), d)));
      // the log after the append holds exactly logged + fresh (when the append was done before a crash, fresh is
      // empty and logged holds it); a change in both would count once, the rebuild settles equal changes
      diff = SparkScd2Difference.of(SparkScd2History.rebuild(logged.unionByName(fresh), d), current, d)
          .persist(StorageLevel.MEMORY_AND_DISK());
      Dataset<Row> versions = diff;
      long changed = versions.count();
      commits.toDimension(changed, props -> SparkCommits.withSummary(props,
          () -> SparkScd2Difference.merge(versions, dimension.sql(), d)));
      return new Applied(appended, changed);
    } finally {
      if (diff != null) {
        diff.unpersist();
      }
      fresh.unpersist();
      logged.unpersist();
      current.unpersist();
    }
  }

  /**
   * The rows of the touched keys: a join on the key's columns with the (broadcast) keys, after an IN list of the first
   * key column's values when they are few (which Iceberg prunes files and the log's buckets with).
   */
  private Dataset<Row> pick(Dataset<Row> table, Dataset<Row> touched, List<Row> keys) {
    String[] key = d.key().stream().map(io.tidemark.core.Column::name).toArray(String[]::new);
    Object[] first = keys.stream().map(r -> SparkRows.literal(r.get(0))).distinct().toArray();
    Dataset<Row> some = first.length <= Scd2Upsert.IN_LIST_MAX ? table.where(col(key[0]).isin(first)) : table;
    return some.join(touched, key).select(Arrays.stream(table.columns()).map(c -> col(c)).toArray(Column[]::new));
  }
}
