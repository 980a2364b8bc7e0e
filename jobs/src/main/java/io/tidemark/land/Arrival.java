package io.tidemark.land;

import java.util.List;

/** What arrives at one moment: numbered from 1, written under {@code <dataset>/arrival=NNNN/}. */
public record Arrival(int number, List<LandingFile> files) {
  public Arrival {
    if (number < 1 || number > 9999) {
      throw new IllegalArgumentException("arrival numbers go from 1 to 9999, got " + number);
    }
    files = List.copyOf(files);
  }

  /** The directory of this arrival for a dataset, relative to the landing prefix. */
  public static String dir(Feed dataset, int number) {
    return dataset.dir() + "/arrival=" + String.format(java.util.Locale.ROOT, "%04d", number) + "/";
  }
}
