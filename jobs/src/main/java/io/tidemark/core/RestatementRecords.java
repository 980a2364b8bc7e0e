package io.tidemark.core;

/**
 * What a restatement keeps in tables: its log, one row per correction it made, and its plan, one row per correction
 * it will make ({@link Correction}).
 */
public final class RestatementRecords {
  public static final Column RUN_ID = Column.of("run_id", Type.STRING);
  public static final Column BRANCH = Column.of("branch", Type.STRING);

  // ---- the log
  public static final Column TARGET_TABLE = Column.of("target_table", Type.STRING);
  public static final Column CORRECTION = Column.of("correction", Type.STRING);
  public static final Column KEY = Column.of("key", Type.STRING);
  public static final Column OLD_VALUE = Column.of("old_value", Type.STRING);
  public static final Column NEW_VALUE = Column.of("new_value", Type.STRING);
  public static final Column CORRECTED_AT = Column.of("corrected_at", Type.TIMESTAMP);

  /** One correction made. */
  public static final Schema LOG = Schema.of(RUN_ID, BRANCH, TARGET_TABLE, CORRECTION, KEY, OLD_VALUE, NEW_VALUE,
      CORRECTED_AT);

  // ---- the plan
  public static final Column ATTEMPT = Column.of("attempt", Type.INT);
  /** {@code window}, {@code event} or {@code change}: which of the columns below a row uses. */
  public static final Column KIND = Column.of("kind", Type.STRING);
  public static final Column OLD_N = Column.of("old_n", Type.BIGINT);
  public static final Column NEW_N = Column.of("new_n", Type.BIGINT);
  /** The rows the events table held for the event id. */
  public static final Column OLD_ROWS = Column.of("old_rows", Type.BIGINT);
  /**
   * The values of the fields promoted into the feed ({@code tidemark evolve}) that an event or a change carries, as
   * a JSON object of their text ({@link CorrectionPlan}); null when the feed has none.
   */
  public static final Column PROMOTED = Column.of("promoted", Type.STRING);

  /**
   * One correction planned, of one kind: a window (company, window start, old and new count), an event (its first
   * occurrence, and the rows the events table held for its id) or a late company change.
   */
  public static final Schema PLAN = Schema.of(RUN_ID, BRANCH, ATTEMPT, KIND, Events.COMPANY_ID, WindowCounts.W_START,
      OLD_N, NEW_N, Events.EVENT_ID, Events.AMOUNT, Events.EVENT_TS, OLD_ROWS, CompanyChanges.NAME,
      CompanyChanges.TIER, CompanyChanges.CHANGE_TS, CompanyChanges.DELETED, PROMOTED);

  private RestatementRecords() {}
}
