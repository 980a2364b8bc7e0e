package io.tidemark.restate;

import io.tidemark.core.CorrectionSet;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.pipeline.Pipeline;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which engine works a plan's corrections out ({@link Corrections}): the driver ({@link DriverCorrections}) while the
 * rows it reads stay within the budget (the usual restatement of a few late records), Spark
 * ({@link SparkCorrections}) past it. The one place the choice is made; the contract suite runs both through it.
 */
final class CorrectionEngines {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectionEngines.class);

  /** The engines. */
  enum Engine { DRIVER, SPARK }

  /** The corrections, and the engine that worked them out. */
  record Worked(Engine engine, CorrectionSet corrections) {}

  private CorrectionEngines() {}

  /** The corrections between two marks, on the driver within {@code driverRows}, else in Spark. */
  static Worked between(SparkSession spark, Pipeline pipeline, PinnedTables at, long driverRows, Marks previous,
                        Marks now) {
    try {
      return new Worked(Engine.DRIVER, new DriverCorrections(at, pipeline, driverRows).between(previous, now));
    } catch (DriverReads.TooManyRows e) {
      LOG.info("{}: the plan works in Spark", e.getMessage());
      return new Worked(Engine.SPARK, new SparkCorrections(spark, pipeline, at).between(previous, now));
    }
  }
}
