package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.DriverWrites;
import io.tidemark.lakehouse.IcebergTables;
import io.tidemark.lakehouse.Schemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.spark.SparkReadOptions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;

/**
 * A small SCD2 batch, settled on the driver: its changes, and its companies' rows of the change log and the
 * dimension (each read once, with an IN list), are on the driver; the history and the difference are computed
 * there, and both commits are written there too (see {@link DriverWrites}): the changes appended to the log, and
 * the dimension's difference as position deletes of the versions it replaces or removes plus the new versions,
 * validated like a MERGE against the snapshot the versions were read from. Three reads and two writes instead of
 * the dozen Spark jobs whose fixed costs would be most of a small batch's time.
 */
final class Scd2DriverBatch {
  private static final String FILE = MetadataColumns.FILE_PATH.name();
  private static final String POS = MetadataColumns.ROW_POSITION.name();

  private final SparkSession spark;
  private final TableName dimension;
  private final TableName changeLog;
  private final BatchCommitter committer;

  Scd2DriverBatch(SparkSession spark, TableName dimension, TableName changeLog, BatchCommitter committer) {
    this.spark = spark;
    this.dimension = dimension;
    this.changeLog = changeLog;
    this.committer = committer;
  }

  /** {@code batch}: the batch's on-time changes, rows of {@link Schemas#COMPANY_CHANGE}. */
  void upsert(List<Row> batch, long batchId) {
    Object[] keys = batch.stream().map(r -> r.getAs("company_id")).distinct().toArray();
    List<Row> logged = spark.table(changeLog.sql()).select(Schemas.columns(Schemas.COMPANY_CHANGE))
        .where(col("company_id").isin(keys)).collectAsList();
    Table dim = IcebergTables.load(spark, dimension);
    Long readAt = dim.currentSnapshot() == null ? null : dim.currentSnapshot().snapshotId();
    Map<List<Object>, DriverWrites.Position> at = new HashMap<>();
    List<Row> current = new ArrayList<>();
    if (readAt != null) {
      Column[] read = Stream.concat(Stream.of(Schemas.columns(Schemas.COMPANY_VERSION)), Stream.of(col(FILE), col(POS)))
          .toArray(Column[]::new);
      for (Row r : spark.read().option(SparkReadOptions.SNAPSHOT_ID, readAt).table(dimension.sql()).select(read)
          .where(col("company_id").isin(keys)).collectAsList()) {
        Row version = new GenericRowWithSchema(Stream.of(Schemas.COMPANY_VERSION.fieldNames()).map(r::getAs)
            .toArray(), Schemas.COMPANY_VERSION);
        current.add(version);
        at.put(Scd2Difference.versionKey(version), new DriverWrites.Position(r.getAs(FILE), r.<Long>getAs(POS)));
      }
    }
    Set<List<Object>> applied = logged.stream().map(Scd2Difference::values).collect(Collectors.toSet());
    // a change repeated in the batch, or already in the log, is applied once
    List<Row> fresh = batch.stream().map(Scd2Difference::values).distinct().filter(v -> !applied.contains(v))
        .map(v -> (Row) new GenericRowWithSchema(v.toArray(), Schemas.COMPANY_CHANGE)).toList();
    committer.dropped(0, batch.size() - fresh.size());
    committer.commitOnDriver(spark, batchId, changeLog, fresh.size(),
        props -> DriverWrites.append(IcebergTables.load(spark, changeLog), Schemas.COMPANY_CHANGE, fresh, props));
    // as in Spark: the log after the append holds exactly logged + fresh
    List<Row> history = new ArrayList<>(logged);
    history.addAll(fresh);
    List<Row> diff = Scd2Difference.of(Scd2History.rebuildRows(history), current);
    // MERGE's rules: a version keyed on (company_id, valid_from) is replaced when it is in the difference, removed
    // when marked so; an upsert is written anew
    List<DriverWrites.Position> removed = diff.stream().map(r -> at.get(Scd2Difference.versionKey(r)))
        .filter(Objects::nonNull).toList();
    List<Row> added = diff.stream().filter(Scd2Difference::isUpsert).toList();
    committer.commitOnDriver(spark, batchId, dimension, diff.size(), props -> DriverWrites.replace(dim, readAt,
        removed, Schemas.COMPANY_VERSION, added, Expressions.in("company_id", keys), props));
  }
}
