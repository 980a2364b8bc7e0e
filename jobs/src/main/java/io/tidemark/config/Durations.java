package io.tidemark.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people and Spark write them: "10 minutes", "30 seconds", "1 hour", "2 days". */
public final class Durations {
  private static final Pattern TEXT = Pattern.compile("(\\d{1,9})\\s*(second|minute|hour|day)s?");

  private Durations() {}

  public static Duration parse(String text) {
    Matcher m = TEXT.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("not a duration: '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "second" -> Duration.ofSeconds(n);
      case "minute" -> Duration.ofMinutes(n);
      case "hour" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
    if (d.isZero()) {
      throw new IllegalArgumentException("a duration must be positive: '" + text + "'");
    }
    return d;
  }

  /** The interval string Spark takes, e.g. "600 seconds". */
  public static String spark(Duration d) {
    return d.toSeconds() + " seconds";
  }

  /** For people: "10 minutes", "90 seconds", "1 hour". */
  public static String show(Duration d) {
    long s = d.toSeconds();
    if (s % 3600 == 0) {
      return plural(s / 3600, "hour");
    }
    return s % 60 == 0 ? plural(s / 60, "minute") : plural(s, "second");
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }
}
