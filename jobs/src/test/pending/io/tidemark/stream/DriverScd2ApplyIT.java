package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChange;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.List;

/** The SCD2 apply's contract, on the driver ({@link Scd2OnDriver}). */
class DriverScd2ApplyIT extends Scd2ApplyContract<List<CompanyChange>> {
  DriverScd2ApplyIT() {
    super("scd2_driver");
  }

  @Override
  Scd2Apply<List<CompanyChange>> engine(TableName dimension, TableName changeLog) {
    return new Scd2OnDriver(IcebergTables.load(spark, changeLog), IcebergTables.load(spark, dimension));
  }

  @Override
  List<CompanyChange> batch(List<CompanyChange> changes) {
    return changes;
  }
}
