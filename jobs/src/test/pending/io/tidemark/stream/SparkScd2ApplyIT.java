package io.tidemark.stream;

import io.tidemark.testing.Seed;
import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChange;
import io.tidemark.lakehouse.spark.SparkRows;
import java.util.List;

/** The SCD2 apply's contract, in Spark ({@link Scd2InSpark}), given its batch as the stream gives it: distinct. */
class SparkScd2ApplyIT extends Scd2ApplyContract<Scd2InSpark.Batch> {
  SparkScd2ApplyIT() {
    super("scd2_spark");
  }

  @Override
  Scd2Apply<Scd2InSpark.Batch> engine(TableName dimension, TableName changeLog) {
    return new Scd2InSpark(dimension, changeLog);
  }

  @Override
  Scd2InSpark.Batch batch(List<CompanyChange> changes) {
    return new Scd2InSpark.Batch(spark.createDataFrame(SparkRows.rows(changes.stream().map(CompanyChange::values)
        .toList()), SparkRows.struct(Seed.CHANGES.columns())).distinct(),
        changes.stream().map(CompanyChange::companyId).distinct().toArray());
  }
}
