package io.tidemark.restate;

/**
 * The corrections' contract, in Spark ({@link SparkCorrections}): with a budget of no rows on the driver, the factory
 * hands every plan with something to read to Spark.
 */
class SparkCorrectionsIT extends CorrectionsContract {
  SparkCorrectionsIT() {
    super("corrections_spark");
  }

  @Override
  long driverRows() {
    return 0;
  }

  @Override
  CorrectionEngines.Engine engine() {
    return CorrectionEngines.Engine.SPARK;
  }
}
