package io.tidemark.land;

import java.util.List;

/** What arrives at one moment: numbered from 1, written where {@link LandingLayout} puts it. */
public record Arrival(int number, List<LandingFile> files) {
  public Arrival {
    if (number < 1 || number > LandingLayout.MAX_ARRIVAL) {
      throw new IllegalArgumentException("arrival numbers go from 1 to " + LandingLayout.MAX_ARRIVAL + ", got "
          + number);
    }
    files = List.copyOf(files);
  }
}
