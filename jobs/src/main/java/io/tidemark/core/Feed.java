package io.tidemark.core;

/**
 * A feed: one kind of data that lands (the command line's {@code --dataset}), declared once ({@link FeedSchema}). Each
 * has its own directory in the landing zone and its own streams. Named apart from Spark's {@code Dataset}, which most
 * stream code uses too.
 */
public enum Feed {
  /** Business events ({@link Events}). */
  EVENTS(Events.FEED),
  /** Company dimension changes ({@link CompanyChanges}), {@code "deleted": true} on a delete. */
  COMPANIES(CompanyChanges.FEED);

  private final FeedSchema schema;

  Feed(FeedSchema schema) {
    this.schema = schema;
  }

  /** What its lines hold: columns and types, key, event time. */
  public FeedSchema schema() {
    return schema;
  }

  /** The directory name in the landing zone. */
  public String dir() {
    return schema.name();
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
