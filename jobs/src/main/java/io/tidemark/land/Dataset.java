package io.tidemark.land;

import java.util.Locale;

/** The kinds of data that land: each has its own prefix in the landing zone and its own stream. */
public enum Dataset {
  /** Business events (see {@code Schemas.EVENT}). */
  EVENTS,
  /** Company dimension changes (see {@code Schemas.COMPANY_CHANGE}), {@code "deleted": true} on a delete. */
  COMPANIES;

  /** The directory name in the landing zone. */
  public String dir() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Dataset parse(String text) {
    for (Dataset d : values()) {
      if (d.dir().equalsIgnoreCase(text.trim())) {
        return d;
      }
    }
    throw new IllegalArgumentException("unknown dataset '" + text + "' (expected events or companies)");
  }
}
