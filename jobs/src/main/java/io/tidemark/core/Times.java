package io.tidemark.core;

import java.time.Instant;

/** Instants as the tables keep them: microseconds since the epoch (Iceberg's and Spark's timestamps). */
public final class Times {
  private Times() {}

  public static long micros(Instant i) {
    return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000);
  }

  public static Instant ofMicros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000);
  }
}
