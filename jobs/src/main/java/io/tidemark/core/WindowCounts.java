package io.tidemark.core;

/** Events per company and event-time window ({@link Windows}), written once the window is final. */
public final class WindowCounts {
  public static final Column COMPANY_ID = Events.COMPANY_ID;
  /** The window's start. */
  public static final Column W_START = Column.of("w_start", Type.TIMESTAMP);
  /** The events counted in it. */
  public static final Column N = Column.of("n", Type.BIGINT);

  public static final Schema SCHEMA = Schema.of(COMPANY_ID, W_START, N);

  private WindowCounts() {}
}
