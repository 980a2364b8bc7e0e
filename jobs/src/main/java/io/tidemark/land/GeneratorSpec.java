package io.tidemark.land;

import java.time.Instant;

/**
 * Parameters of a generated scenario. The same spec gives byte-identical files.
 *
 * @param seed random seed
 * @param events distinct valid records of each fact feed (late and far-future ones included), spread evenly over the
 *     arrivals
 * @param groups values of each grouping column (and of any other string column) of a fact feed
 * @param duplicateRate chance that a record is delivered again (same line), in its arrival or the next
 * @param lateRate chance that a record carries an event time 12 to 90 minutes behind the arrival's clock
 * @param jumps far-future records, each 45 minutes past the end of its arrival's time span: it moves the
 *     watermark so that the next arrival's first records are late
 * @param malformedRate chance that a malformed line follows a valid one
 * @param arrivals number of arrivals
 * @param changes changes of each dimension feed, spread evenly over the arrivals
 * @param keys distinct keys of each dimension's changes
 * @param start event time of the first arrival
 * @param minutesPerArrival event time covered by one arrival
 */
public record GeneratorSpec(long seed, int events, int groups, double duplicateRate, double lateRate,
                            int jumps, double malformedRate, int arrivals, int changes, int keys,
                            Instant start, int minutesPerArrival) {

  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  public GeneratorSpec {
    require(events >= 0, "events must be >= 0");
    require(groups >= 1, "groups must be >= 1");
    require(rate(duplicateRate), "duplicate rate must be in [0, 1)");
    require(rate(lateRate), "late rate must be in [0, 1)");
    require(jumps >= 0 && jumps <= events, "jumps must be between 0 and the number of events");
    require(rate(malformedRate), "malformed rate must be in [0, 1)");
    require(arrivals >= 1 && arrivals <= LandingLayout.MAX_ARRIVAL,
        "arrivals must be between 1 and " + LandingLayout.MAX_ARRIVAL);
    require(changes >= 0, "changes must be >= 0");
    require(keys >= 1, "keys must be >= 1");
    require(minutesPerArrival >= 1, "minutes per arrival must be >= 1");
    require(start != null, "start is required");
  }

  /** A small default: 10k records of each fact feed over 5 arrivals with some of everything, no dimension changes. */
  public static GeneratorSpec defaults() {
    return new GeneratorSpec(42, 10_000, 20, 0.02, 0.01, 1, 0.01, 5, 0, 100, DEFAULT_START, 60);
  }

  private static boolean rate(double r) {
    return r >= 0 && r < 1;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
