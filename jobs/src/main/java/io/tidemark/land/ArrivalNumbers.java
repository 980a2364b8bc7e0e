package io.tidemark.land;

import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/** Which number an arrival lands under: the one asked for, or for files that came without one, the next. */
public final class ArrivalNumbers {
  private ArrivalNumbers() {}

  /**
   * The number files of {@code feed} land under when none is given: the arrival that holds exactly these files
   * already (landing them again is then a no-op), else the one after the highest landed.
   */
  public static int forFiles(Lander lander, String feed, List<LandingFile> files) {
    OptionalInt same = lander.findIdentical(feed, files);
    return same.orElse(lander.lastArrival(feed) + 1);
  }

  /** Arrival {@code number} of {@code scenario}; a one-line error naming the arrivals it has when it has not. */
  public static Arrival pick(Scenario scenario, int number, String what) {
    List<Arrival> all = scenario.arrivals();
    return all.stream().filter(a -> a.number() == number).findFirst()
        .orElseThrow(() -> new LandingException("--arrival " + number + ": " + what + " has arrivals "
            + numbers(all)));
  }

  /** 1..n, or the numbers one by one when some are missing. */
  static String numbers(List<Arrival> arrivals) {
    int last = arrivals.isEmpty() ? 0 : arrivals.get(arrivals.size() - 1).number();
    if (arrivals.size() == last) {
      return "1.." + last;
    }
    return arrivals.stream().map(a -> String.valueOf(a.number())).collect(Collectors.joining(", "));
  }
}
