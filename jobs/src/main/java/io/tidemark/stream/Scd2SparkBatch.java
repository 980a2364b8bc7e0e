package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Schemas;
import java.util.Arrays;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A large SCD2 batch, settled in Spark: its companies' rows of the change log and the dimension read once and
 * cached, the unlogged changes appended, the difference merged (see {@link Scd2Upsert} for the rules).
 */
final class Scd2SparkBatch {
  private final TableName dimension;
  private final TableName changeLog;
  private final BatchCommitter committer;

  Scd2SparkBatch(TableName dimension, TableName changeLog, BatchCommitter committer) {
    this.dimension = dimension;
    this.changeLog = changeLog;
    this.committer = committer;
  }

  /** {@code incoming}: the batch's on-time changes, distinct; {@code keys}: their companies. */
  void upsert(Dataset<Row> incoming, Object[] keys, long batchId) {
    SparkSession spark = incoming.sparkSession();
    Dataset<Row> touched = keys.length <= Scd2Upsert.IN_LIST_MAX ? null : broadcast(spark.createDataFrame(
        Arrays.stream(keys).map(RowFactory::create).toList(), new StructType().add("company_id", "string")));
    Dataset<Row> logged = pick(spark.table(changeLog.sql()).select(Schemas.columns(Schemas.COMPANY_CHANGE)), keys,
        touched).persist();
    Dataset<Row> current = pick(spark.table(dimension.sql()).select(Schemas.columns(Schemas.COMPANY_VERSION)),
        keys, touched).persist();
    try {
      Dataset<Row> fresh = Scd2ChangeLog.unlogged(incoming, logged);
      committer.commit(batchId, changeLog, fresh, BatchCommitter.Output.SMALL,
          rows -> Scd2ChangeLog.append(rows, changeLog.sql()));
      // the log after the append holds exactly logged + fresh (when the append was done before a crash, fresh is
      // empty and logged holds it); a change in both would count once, the rebuild settles equal changes
      Dataset<Row> history = SparkScd2History.rebuild(logged.unionByName(fresh));
      committer.commit(batchId, dimension, SparkScd2Difference.of(history, current), BatchCommitter.Output.SMALL,
          diff -> SparkScd2Difference.merge(diff, dimension.sql()));
    } finally {
      logged.unpersist();
      current.unpersist();
    }
  }

  /** The rows of these companies: with an IN list, or joined with {@code touched} when there are many. */
  private static Dataset<Row> pick(Dataset<Row> table, Object[] keys, Dataset<Row> touched) {
    return touched == null ? table.where(col("company_id").isin(keys)) : table.join(touched, "company_id");
  }
}
