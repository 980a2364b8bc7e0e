package io.tidemark.restate;

import io.tidemark.testing.SeedTables;
import java.time.Duration;

/** The corrections' contract, in Spark ({@link SparkCorrections}). */
class SparkCorrectionsIT extends CorrectionsContract {
  SparkCorrectionsIT() {
    super("corrections_spark");
  }

  @Override
  Corrections engine(PinnedTables at, SeedTables tables, Duration window) {
    return new SparkCorrections(spark, tables, at, window);
  }
}
