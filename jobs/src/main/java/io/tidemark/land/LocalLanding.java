package io.tidemark.land;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes arrivals to a local directory in the landing zone's layout, for a stream over local files, for
 * DuckDB, or to look at what a scenario contains.
 */
public final class LocalLanding {
  private LocalLanding() {}

  /** Writes every file of the arrivals under {@code dir}; the paths written. */
  public static List<Path> write(Path dir, String prefix, List<Arrival> arrivals) {
    String p = Lander.normalize(prefix);
    List<Path> written = new ArrayList<>();
    for (Arrival a : arrivals) {
      for (LandingFile f : a.files()) {
        Path target = dir.resolve(p + LandingLayout.path(f.feed(), a.number(), f.name()));
        try {
          Files.createDirectories(target.getParent());
          Files.write(target, f.content());
        } catch (IOException e) {
          throw new LandingException("cannot write " + target + " (" + e.getMessage() + ")");
        }
        written.add(target);
      }
    }
    return written;
  }
}
