package io.tidemark.core;

/** Where and when a raw row came in: the columns every raw archive and the quarantine add to what landed. */
public final class Ingest {
  /** The landed file the line came from, as Spark read it ({@code s3a://bucket/events/arrival=0003/part-1.jsonl}). */
  public static final Column SOURCE_FILE = Column.of("source_file", Type.STRING);
  /** The arrival number in the file's path (null outside the landing layout). */
  public static final Column ARRIVAL = Column.of("arrival", Type.INT);
  /** The micro-batch of the raw stream that read it. */
  public static final Column BATCH_ID = Column.of("batch_id", Type.BIGINT);
  /** The micro-batch's timestamp: the same when a batch runs again after a crash. */
  public static final Column INGEST_TS = Column.of("ingest_ts", Type.TIMESTAMP);

  public static final Schema SCHEMA = Schema.of(SOURCE_FILE, ARRIVAL, BATCH_ID, INGEST_TS);

  private Ingest() {}
}
