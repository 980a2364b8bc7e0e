package io.tidemark.core;

import java.util.List;

/** The events feed: what happened to a company, and when. */
public final class Events {
  public static final Column EVENT_ID = Column.of("event_id", Type.INT);
  public static final Column COMPANY_ID = Column.of("company_id", Type.STRING);
  public static final Column AMOUNT = Column.of("amount", Type.DOUBLE);
  public static final Column EVENT_TS = Column.of("event_ts", Type.TIMESTAMP);

  /** An event as it lands; duplicates share the event id. */
  public static final FeedSchema FEED = new FeedSchema("events", Schema.of(EVENT_ID, COMPANY_ID, AMOUNT, EVENT_TS),
      EVENT_ID, EVENT_TS, List.of(EVENT_ID, EVENT_TS));

  private Events() {}
}
