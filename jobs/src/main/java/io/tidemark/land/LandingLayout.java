package io.tidemark.land;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The landing zone's layout, {@code <feed>/arrival=NNNN/<file>}, written and read only through this class: the
 * lander and {@code land --to-dir} write it, a replay reads it back whole, and the streams read the arrival number
 * from a file's path (the raw archive keeps it, commits name it). NNNN is the number in four digits, so that
 * listings sort in arrival order; that is what limits arrivals to 9999.
 */
public final class LandingLayout {
  /** The layout, as help texts and messages show it. */
  public static final String SHAPE = "<feed>/arrival=NNNN/<file>";

  /** The highest arrival number four digits hold. */
  public static final int MAX_ARRIVAL = 9999;

  /**
   * An arrival's directory anywhere in a path, its number in group 1. Java's regular expressions, which Spark's
   * {@code regexp_extract} uses too.
   */
  public static final String ARRIVAL_DIR_REGEX = "arrival=(\\d{4})/";

  private static final Pattern ARRIVAL_DIR = Pattern.compile(ARRIVAL_DIR_REGEX);
  /** A feed's directory, as a pipeline file names a feed. */
  private static final Pattern FILE = Pattern.compile("^([a-z][a-z0-9_]*)/" + ARRIVAL_DIR_REGEX + "([^/]+)$");

  private LandingLayout() {}

  /** Where a landed file is: its feed, its arrival and its name. */
  public record Place(String feed, int arrival, String name) {}

  /** The directory of an arrival of a feed, relative to the landing prefix, with a trailing slash. */
  public static String dir(String feed, int arrival) {
    return feed + "/arrival=" + String.format(Locale.ROOT, "%04d", arrival) + "/";
  }

  /** A file of an arrival of a feed, relative to the landing prefix. */
  public static String path(String feed, int arrival, String name) {
    return dir(feed, arrival) + name;
  }

  /** The arrival a path (an object key, a file URI) lies in, or empty when it has no arrival directory. */
  public static OptionalInt arrivalOf(String path) {
    Matcher m = ARRIVAL_DIR.matcher(path);
    return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  /**
   * A path relative to the landing prefix, read as a landed file of one of {@code feeds}; empty for anything else
   * the location holds (other directories, files deeper down, hidden files such as {@code .DS_Store}).
   */
  public static Optional<Place> parse(String relative, Collection<String> feeds) {
    Matcher m = FILE.matcher(relative);
    if (!m.find() || m.group(3).startsWith(".") || !feeds.contains(m.group(1))) {
      return Optional.empty();
    }
    return Optional.of(new Place(m.group(1), Integer.parseInt(m.group(2)), m.group(3)));
  }

  /** "orders/arrival=NNNN/ or customers/arrival=NNNN/", for messages about a location that holds none. */
  public static String feedDirs(Collection<String> feeds) {
    return feeds.stream().map(f -> f + "/arrival=NNNN/").collect(Collectors.joining(" or "));
  }
}
