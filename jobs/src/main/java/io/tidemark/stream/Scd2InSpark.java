package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;

import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.Dimension;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Schema;
import io.tidemark.lakehouse.spark.SparkCommits;
import io.tidemark.lakehouse.spark.SparkRows;
import java.util.Arrays;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * A large SCD2 batch, settled in Spark: its companies' rows of the change log and the dimension read once and
 * cached, the unlogged changes appended, the difference merged ({@link SparkScd2History},
 * {@link SparkScd2Difference}: the core's rules as plans, tested equal to them).
 */
final class Scd2InSpark implements Scd2Apply<Scd2InSpark.Batch> {
  /** The batch's on-time changes, distinct, and their companies. */
  record Batch(Dataset<Row> incoming, Object[] keys) {}

  private final TableName dimension;
  private final TableName changeLog;
  private final FeedSchema companies;

  Scd2InSpark(TableName dimension, TableName changeLog) {
    this(dimension, changeLog, CompanyChanges.FEED);
  }

  /** For the companies as declared when the job runs: a promoted attribute is logged and tracked too. */
  Scd2InSpark(TableName dimension, TableName changeLog, FeedSchema companies) {
    this.dimension = dimension;
    this.changeLog = changeLog;
    this.companies = companies;
  }

  @Override
  public Applied apply(Batch batch, Commits commits) {
    SparkSession spark = batch.incoming().sparkSession();
    Object[] keys = batch.keys();
    Dataset<Row> touched = keys.length <= Scd2Upsert.IN_LIST_MAX ? null : broadcast(spark.createDataFrame(
        Arrays.stream(keys).map(RowFactory::create).toList(), SparkRows.struct(Schema.of(Dimension.COMPANY_ID))));
    Dataset<Row> logged = pick(spark.table(changeLog.sql()).select(SparkRows.columns(companies.columns())),
        keys, touched).persist();
    Dataset<Row> current = pick(spark.table(dimension.sql()).select(SparkRows.columns(Dimension.version(companies))), keys,
        touched).persist();
    Dataset<Row> fresh = Scd2ChangeLog.unlogged(batch.incoming(), logged).persist(StorageLevel.MEMORY_AND_DISK());
    Dataset<Row> diff = null;
    try {
      long appended = fresh.count();
      commits.toLog(appended, props -> SparkCommits.withSummary(props,
          () -> Scd2ChangeLog.append(fresh, changeLog.sql(), companies)));
      // the log after the append holds exactly logged + fresh (when the append was done before a crash, fresh is
      // empty and logged holds it); a change in both would count once, the rebuild settles equal changes
      diff = SparkScd2Difference.of(SparkScd2History.rebuild(logged.unionByName(fresh), companies), current)
          .persist(StorageLevel.MEMORY_AND_DISK());
      Dataset<Row> versions = diff;
      long changed = versions.count();
      commits.toDimension(changed, props -> SparkCommits.withSummary(props,
          () -> SparkScd2Difference.merge(versions, dimension.sql())));
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

  /** The rows of these companies: with an IN list, or joined with {@code touched} when there are many. */
  private static Dataset<Row> pick(Dataset<Row> table, Object[] keys, Dataset<Row> touched) {
    String company = Dimension.COMPANY_ID.name();
    return touched == null ? table.where(col(company).isin(keys)) : table.join(touched, company);
  }
}
