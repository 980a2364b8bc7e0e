package io.tidemark.land;

import java.util.Locale;

/**
 * A feed: one kind of data that lands (the command line's {@code --dataset}). Each has its own directory in the
 * landing zone and its own streams. Named apart from Spark's {@code Dataset}, which most stream code uses too.
 */
public enum Feed {
  /** Business events (see {@code Schemas.EVENT}). */
  EVENTS,
  /** Company dimension changes (see {@code Schemas.COMPANY_CHANGE}), {@code "deleted": true} on a delete. */
  COMPANIES;

  /** The directory name in the landing zone. */
  public String dir() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Feed parse(String text) {
    for (Feed d : values()) {
      if (d.dir().equalsIgnoreCase(text.trim())) {
        return d;
      }
    }
    throw new IllegalArgumentException("unknown dataset '" + text + "' (expected events or companies)");
  }
}
