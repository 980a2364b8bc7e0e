package io.tidemark.core;

/**
 * One micro-batch of a stream's run, as the stream-batches table keeps it: which arrivals it read, rows in, written
 * (per table, with the snapshot of each commit), quarantined, carrying rescued data and dropped, state, watermark and event times, and
 * where the time went.
 */
public final class BatchColumns {
  public static final Column STREAM = Column.of("stream", Type.STRING);
  public static final Column QUERY_ID = Column.of("query_id", Type.STRING);
  public static final Column RUN_ID = Column.of("run_id", Type.STRING);
  public static final Column BATCH_ID = Ingest.BATCH_ID;
  public static final Column ARRIVAL = Ingest.ARRIVAL;
  public static final Column ARRIVALS = Column.of("arrivals", Type.STRING);
  public static final Column STARTED_AT = Column.of("started_at", Type.TIMESTAMP);
  public static final Column ENDED_AT = Column.of("ended_at", Type.TIMESTAMP);
  public static final Column INPUT_ROWS = Column.of("input_rows", Type.BIGINT);
  public static final Column ROWS_WRITTEN = Column.of("rows_written", Type.COUNTS);
  public static final Column ROWS_QUARANTINED = Column.of("rows_quarantined", Type.BIGINT);
  /** A raw archive's rows that carried rescued data ({@link Rescued}); null for the other streams. */
  public static final Column ROWS_RESCUED = Column.of("rows_rescued", Type.BIGINT);
  public static final Column LATE_ROWS_DROPPED = Column.of("late_rows_dropped", Type.BIGINT);
  public static final Column LATE_UNIT = Column.of("late_unit", Type.STRING);
  public static final Column DUPLICATES_DROPPED = Column.of("duplicates_dropped", Type.BIGINT);
  public static final Column STATE_ROWS = Column.of("state_rows", Type.BIGINT);
  public static final Column STATE_BYTES = Column.of("state_bytes", Type.BIGINT);
  public static final Column WATERMARK_BEFORE = Column.of("watermark_before", Type.TIMESTAMP);
  public static final Column WATERMARK_AFTER = Column.of("watermark_after", Type.TIMESTAMP);
  public static final Column EVENT_TIME_MIN = Column.of("event_time_min", Type.TIMESTAMP);
  public static final Column EVENT_TIME_MAX = Column.of("event_time_max", Type.TIMESTAMP);
  public static final Column DURATION_MS = Column.of("duration_ms", Type.BIGINT);
  public static final Column PLANNING_MS = Column.of("planning_ms", Type.BIGINT);
  public static final Column WORK_MS = Column.of("work_ms", Type.BIGINT);
  public static final Column COMMIT_MS = Column.of("commit_ms", Type.BIGINT);
  public static final Column SNAPSHOTS = Column.of("snapshots", Type.COUNTS);
  public static final Column REPLAYED_TABLES = Column.of("replayed_tables", Type.NAMES);
  public static final Column RECOVERED = Column.of("recovered", Type.BOOLEAN);

  public static final Schema SCHEMA = Schema.of(STREAM, QUERY_ID, RUN_ID, BATCH_ID, ARRIVAL, ARRIVALS, STARTED_AT,
      ENDED_AT, INPUT_ROWS, ROWS_WRITTEN, ROWS_QUARANTINED, ROWS_RESCUED, LATE_ROWS_DROPPED, LATE_UNIT, DUPLICATES_DROPPED,
      STATE_ROWS, STATE_BYTES, WATERMARK_BEFORE, WATERMARK_AFTER, EVENT_TIME_MIN, EVENT_TIME_MAX, DURATION_MS,
      PLANNING_MS, WORK_MS, COMMIT_MS, SNAPSHOTS, REPLAYED_TABLES, RECOVERED);

  private BatchColumns() {}
}
