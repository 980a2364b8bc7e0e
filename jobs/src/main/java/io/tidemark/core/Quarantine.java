package io.tidemark.core;

/** A landed line that is not valid, kept with why: the quarantine's own columns (then {@link Ingest}'s). */
public final class Quarantine {
  /** The feed the line landed in. */
  public static final Column DATASET = Column.of("dataset", Type.STRING);
  /** The line as it landed. */
  public static final Column LINE = Column.of("line", Type.STRING);
  /** Why it was rejected; null for a valid line while a raw stream sorts its lines. */
  public static final Column REASON = Column.of("reason", Type.STRING);

  public static final Schema LINE_SCHEMA = Schema.of(DATASET, LINE, REASON);

  private Quarantine() {}
}
