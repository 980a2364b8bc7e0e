package io.tidemark.stream;

/**
 * Which engine settles an SCD2 batch ({@link Scd2Apply}): the driver ({@link Scd2OnDriver}) for the usual arrival, up
 * to {@value #DRIVER_MAX_KEYS} keys and {@value #DRIVER_MAX_ROWS} changes, whose rows of the change log and the
 * dimension come along (a few MB of rows there save the dozen Spark jobs, and their fixed costs, of doing it in
 * Spark); Spark ({@link Scd2InSpark}) beyond. The one place the choice is made; the contract suite runs both.
 */
public final class Scd2Engines {
  /** The engines. */
  public enum Engine { DRIVER, SPARK }

  /** Keys a batch touches at most to be settled on the driver, and for their rows to be picked with an IN list. */
  public static final int DRIVER_MAX_KEYS = 10_000;
  /** Changes a batch holds at most to be settled on the driver. */
  public static final int DRIVER_MAX_ROWS = 100_000;
  /**
   * Input a batch may have at most (Spark's size estimate of its files) to be collected to the driver at once, before
   * its rows and keys are counted: a few MB of change lines.
   */
  public static final long DRIVER_MAX_BYTES = 16L << 20;

  private Scd2Engines() {}

  /** Whether a batch of that estimated size may be collected to be counted (and then settled on the driver). */
  public static boolean mayFitTheDriver(long estimatedBytes) {
    return estimatedBytes <= DRIVER_MAX_BYTES;
  }

  /** The engine for a batch of {@code rows} on-time changes of {@code keys} keys. */
  public static Engine choose(long rows, long keys) {
    return keys <= DRIVER_MAX_KEYS && rows <= DRIVER_MAX_ROWS ? Engine.DRIVER : Engine.SPARK;
  }
}
