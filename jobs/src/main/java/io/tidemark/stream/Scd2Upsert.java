package io.tidemark.stream;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.lakehouse.DriverWrites;
import io.tidemark.lakehouse.IcebergTables;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.lakehouse.TableCatalog;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkReadOptions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

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
 * A small batch (the usual arrival: up to 10k companies and 100k changes) is settled on the driver: three reads
 * and two writes, instead of the dozen Spark jobs whose fixed costs would be most of its time.
 * A change at or before the batch's watermark on change_ts (the newest change seen before, less a day by
 * default) is late: it is left to the restatement job, which finds it in the raw archive. A repeated change
 * line is applied once, since the log already holds it; so the stream keeps no state of its own.
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
    // no stateful operator: the batch's own late filter and the change log (a change applied once is not applied
    // again) do what dropDuplicatesWithinWatermark did, without its state store and the trailing no-data batch
    // it needs to evict; Spark still tracks the watermark and records it in the offset log
    Dataset<Row> changes = Scd2History.normalize(LineFormat.COMPANY_CHANGES.valid(spark, source))
        .withWatermark("change_ts", Durations.spark(watermark));
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint);
    return StreamRun.run(NAME, "late change(s)", StreamRun.availableNow(changes, checkpoint,
        (batch, id) -> upsert(batch, id, dimension, changeLog, committer)), committer);
  }

  /**
   * Companies a batch touches at most for their rows to be picked with an IN list (which Iceberg prunes files
   * and the log's buckets with); beyond it, a broadcast join.
   */
  private static final int IN_LIST_MAX = 10_000;
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

  private static void upsert(Dataset<Row> batch, long batchId, TableName dimension, TableName changeLog,
                             BatchCommitter committer) {
    // as the stateful operators do: a change at or before the batch's watermark is late, left to the restatement
    Timestamp watermark = new Timestamp(committer.watermarkMs(batch.sparkSession(), batchId));
    Dataset<Row> changes = batch.select(CHANGE[0], CHANGE[1], CHANGE[2], CHANGE[3], CHANGE[4]);
    if (changes.queryExecution().optimizedPlan().stats().sizeInBytes().longValue() <= DRIVER_MAX_BYTES) {
      List<Row> all = changes.collectAsList();
      List<Row> onTime = all.stream().filter(r -> r.getTimestamp(3).after(watermark)).toList();
      long keys = onTime.stream().map(r -> r.get(0)).distinct().count();
      if (keys <= IN_LIST_MAX && onTime.size() <= DRIVER_MAX_ROWS) {
        committer.dropped(all.size() - onTime.size(), 0);
        if (!onTime.isEmpty()) {
          upsertOnDriver(batch.sparkSession(), onTime, batchId, dimension, changeLog, committer);
        }
        return;
      }
    }
    Dataset<Row> onTime = changes.where(col("change_ts").gt(lit(watermark))).persist();
    Dataset<Row> incoming = onTime.distinct().persist();
    try {
      long arrived = changes.count();
      long inTime = onTime.count();
      List<Row> perCompany = incoming.groupBy("company_id").count().collectAsList();
      committer.dropped(arrived - inTime, inTime - perCompany.stream().mapToLong(r -> r.getLong(1)).sum());
      if (!perCompany.isEmpty()) {
        upsertWithSpark(incoming, perCompany.stream().map(r -> r.get(0)).toArray(), batchId, dimension, changeLog,
            committer);
      }
    } finally {
      incoming.unpersist();
      onTime.unpersist();
    }
  }

  /**
   * A small batch: its changes, and its companies' rows of the log and the dimension (each read once, with an
   * IN list), are on the driver; the history and the difference are computed there, and both commits are written
   * there too (see {@link DriverWrites}): the changes appended to the log, and the dimension's difference as
   * position deletes of the versions it replaces or removes plus the new versions, validated like a MERGE against
   * the snapshot the versions were read from.
   */
  private static void upsertOnDriver(SparkSession spark, List<Row> batch, long batchId, TableName dimension,
                                     TableName changeLog, BatchCommitter committer) {
    Object[] keys = batch.stream().map(r -> r.get(0)).distinct().toArray();
    List<Row> logged = spark.table(changeLog.sql()).select(CHANGE[0], CHANGE[1], CHANGE[2], CHANGE[3], CHANGE[4])
        .where(col("company_id").isin(keys)).collectAsList();
    Table dim = IcebergTables.load(spark, dimension);
    Long readAt = dim.currentSnapshot() == null ? null : dim.currentSnapshot().snapshotId();
    Map<List<Object>, DriverWrites.Position> at = new HashMap<>();
    List<Row> current = new ArrayList<>();
    if (readAt != null) {
      Column[] read = Stream.concat(Arrays.stream(Schemas.columns(Schemas.COMPANY_VERSION)),
          Stream.of(col(MetadataColumns.FILE_PATH.name()), col(MetadataColumns.ROW_POSITION.name())))
          .toArray(Column[]::new);
      for (Row r : spark.read().option(SparkReadOptions.SNAPSHOT_ID, readAt).table(dimension.sql()).select(read)
          .where(col("company_id").isin(keys)).collectAsList()) {
        Row version = RowFactory.create(IntStream.range(0, 6).mapToObj(r::get).toArray());
        current.add(version);
        at.put(versionKey(version), new DriverWrites.Position(r.getString(6), r.getLong(7)));
      }
    }
    Set<List<Object>> applied = logged.stream().map(Scd2Upsert::values).collect(Collectors.toSet());
    // a change repeated in the batch, or already in the log, is applied once
    List<Row> fresh = batch.stream().map(Scd2Upsert::values).distinct().filter(v -> !applied.contains(v))
        .map(v -> RowFactory.create(v.toArray())).toList();
    committer.dropped(0, batch.size() - fresh.size());
    committer.commitOnDriver(spark, batchId, changeLog, fresh.size(),
        props -> DriverWrites.append(IcebergTables.load(spark, changeLog), Schemas.COMPANY_CHANGE, fresh, props));
    // as in Spark: the log after the append holds exactly logged + fresh
    List<Row> history = new ArrayList<>(logged);
    history.addAll(fresh);
    List<Row> diff = difference(Scd2History.rebuildRows(history), current);
    // MERGE's rules: a version keyed on (company_id, valid_from) is replaced when it is in the difference, removed
    // when marked so; an upsert is written anew
    List<DriverWrites.Position> removed = diff.stream().map(r -> at.get(versionKey(r))).filter(Objects::nonNull)
        .toList();
    List<Row> added = diff.stream().filter(r -> "upsert".equals(r.getString(6))).toList();
    committer.commitOnDriver(spark, batchId, dimension, diff.size(), props -> DriverWrites.replace(dim, readAt,
        removed, Schemas.COMPANY_VERSION, added, Expressions.in("company_id", keys), props));
  }

  private static List<Object> versionKey(Row version) {
    return Arrays.asList(version.get(0), version.get(3));
  }

  /** A large batch: the same steps in Spark, its companies' rows of the log and the dimension read once, cached. */
  private static void upsertWithSpark(Dataset<Row> incoming, Object[] keys, long batchId, TableName dimension,
                                      TableName changeLog, BatchCommitter committer) {
    SparkSession spark = incoming.sparkSession();
    Dataset<Row> touched = keys.length <= IN_LIST_MAX ? null : broadcast(spark.createDataFrame(
        Arrays.stream(keys).map(RowFactory::create).toList(), new StructType().add("company_id", "string")));
    Dataset<Row> logged = pick(spark.table(changeLog.sql()).select(CHANGE[0], CHANGE[1], CHANGE[2], CHANGE[3],
        CHANGE[4]), keys, touched).persist();
    Dataset<Row> current = pick(spark.table(dimension.sql()).select(Schemas.columns(Schemas.COMPANY_VERSION)),
        keys, touched).persist();
    try {
      Dataset<Row> fresh = incoming.join(logged, sameChange(incoming, logged), "left_anti");
      committer.commit(batchId, changeLog, fresh, BatchCommitter.Output.SMALL, rows -> append(rows, changeLog.sql()));
      // the log after the append holds exactly logged + fresh (when the append was done before a crash, fresh is
      // empty and logged holds it); a change in both would count once, the rebuild settles equal changes
      Dataset<Row> history = Scd2History.rebuild(logged.unionByName(fresh));
      committer.commit(batchId, dimension, difference(history, current), BatchCommitter.Output.SMALL,
          diff -> merge(diff, dimension.sql()));
    } finally {
      logged.unpersist();
      current.unpersist();
    }
  }

  /** The rows of these companies: with an IN list, or joined with {@code touched} when there are many. */
  private static Dataset<Row> pick(Dataset<Row> table, Object[] keys, Dataset<Row> touched) {
    return touched == null ? table.where(col("company_id").isin(keys)) : table.join(touched, "company_id");
  }

  private static List<Object> values(Row r) {
    return IntStream.range(0, r.size()).mapToObj(r::get).toList();
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

  /**
   * {@link #difference(Dataset, Dataset)} on the driver: rows of {@link Schemas#COMPANY_VERSION} and what to do with
   * each, {@code upsert} or {@code delete}, as a seventh field.
   */
  static List<Row> difference(List<Row> history, List<Row> current) {
    Set<List<Object>> now = current.stream().map(Scd2Upsert::values).collect(Collectors.toSet());
    Set<List<Object>> versionKeys = history.stream().map(r -> Arrays.asList(r.get(0), r.get(3)))
        .collect(Collectors.toSet());
    List<Row> diff = new ArrayList<>();
    history.stream().map(Scd2Upsert::values).filter(v -> !now.contains(v)).distinct()
        .forEach(v -> diff.add(withOp(v, "upsert")));
    current.stream().filter(r -> !versionKeys.contains(Arrays.asList(r.get(0), r.get(3))))
        .forEach(r -> diff.add(withOp(values(r), "delete")));
    return diff;
  }

  private static Row withOp(List<Object> version, String op) {
    Object[] v = version.toArray(new Object[version.size() + 1]);
    v[version.size()] = op;
    return RowFactory.create(v);
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
