package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.testing.Seed;
import java.util.List;
import org.apache.spark.sql.Row;

/** The SCD2 apply's contract, in Spark ({@link Scd2InSpark}), given its batch as the stream gives it: distinct. */
class SparkScd2ApplyIT extends Scd2ApplyContract<Scd2InSpark.Batch> {
  SparkScd2ApplyIT() {
    super("scd2_spark");
  }

  @Override
  Scd2Apply<Scd2InSpark.Batch> engine(TableName dimension, TableName changeLog) {
    return new Scd2InSpark(dimension, changeLog, Seed.COMPANIES);
  }

  @Override
  Scd2InSpark.Batch batch(List<Change> changes) {
    List<Row> keys = changes.stream().map(Change::key).distinct().map(SparkRows::row).toList();
    return new Scd2InSpark.Batch(spark.createDataFrame(SparkRows.rows(changes.stream().map(Seed.COMPANIES::logRow)
        .toList()), SparkRows.struct(Seed.COMPANIES.logged())).distinct(), keys);
  }

  @Override
  Scd2Engines.Engine kind() {
    return Scd2Engines.Engine.SPARK;
  }

  /** Past each limit: too many changes, too many keys, too much input to collect. */
  @Override
  List<Size> sizesOfItsBatches() {
    long bytes = Scd2Engines.DRIVER_MAX_BYTES;
    long rows = Scd2Engines.DRIVER_MAX_ROWS;
    long keys = Scd2Engines.DRIVER_MAX_KEYS;
    return List.of(new Size(bytes, rows + 1, keys), new Size(bytes, rows, keys + 1), new Size(bytes + 1, 1, 1));
  }
}
