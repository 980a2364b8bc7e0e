package io.tidemark.core;

import java.time.Instant;

/** Instants as the tables keep them: microseconds since the epoch (Iceberg's and Spark's timestamps). */
public final class Times {
  private Times() {}

  public static long micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000);
  }

  /** A duration for people: "10 minutes", "90 seconds", "1 hour", "2 days". */
  public static String show(java.time.Duration d) {
    long s = d.toSeconds();
    if (s % 86_400 == 0) {
      return plural(s / 86_400, "day");
    }
    if (s % 3600 == 0) {
      return plural(s / 3600, "hour");
    }
    return s % 60 == 0 ? plural(s / 60, "minute") : plural(s, "second");
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }

  public static Instant ofMicros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000);
  }
}
