package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.testing.Seed;
import java.util.List;

/** The SCD2 apply's contract, on the driver ({@link Scd2OnDriver}). */
class DriverScd2ApplyIT extends Scd2ApplyContract<List<Change>> {
  DriverScd2ApplyIT() {
    super("scd2_driver");
  }

  @Override
  Scd2Apply<List<Change>> engine(TableName dimension, TableName changeLog) {
    return new Scd2OnDriver(IcebergTables.load(spark, changeLog), IcebergTables.load(spark, dimension),
        Seed.COMPANIES);
  }

  @Override
  List<Change> batch(List<Change> changes) {
    return changes;
  }

  @Override
  Scd2Engines.Engine kind() {
    return Scd2Engines.Engine.DRIVER;
  }

  /** A small batch (the burst), and one at every limit. */
  @Override
  List<Size> sizesOfItsBatches() {
    return List.of(burst(), new Size(Scd2Engines.DRIVER_MAX_BYTES, Scd2Engines.DRIVER_MAX_ROWS,
        Scd2Engines.DRIVER_MAX_KEYS));
  }
}
