package io.tidemark.land;

import java.util.List;

/** A named sequence of arrivals, generated the same way every time. */
public interface Scenario {
  String name();

  /** One line saying what the scenario shows. */
  String description();

  /** All arrivals, in order. */
  List<Arrival> arrivals();

  /** How many arrivals {@link #arrivals()} holds. */
  default int arrivalCount() {
    return arrivals().size();
  }
}
