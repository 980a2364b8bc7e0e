package io.tidemark.core;

/**
 * What a restatement keeps in tables: its log, one row per correction it made, and its plan, one row per correction
 * it will make ({@link CorrectionPlan}).
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
  /** {@code window}, {@code record} or {@code change} ({@link CorrectionPlan}). */
  public static final Column KIND = Column.of("kind", Type.STRING);
  /** The aggregate, fact feed or dimension the correction is of. */
  public static final Column TARGET = Column.of("target", Type.STRING);
  /** The rows the deduplicated table held for a record's key. */
  public static final Column OLD_ROWS = Column.of("old_rows", Type.BIGINT);

  /**
   * One correction planned, of one kind ({@link CorrectionPlan}): a window (its group and start, the measures a row
   * held and the ones the raw archive gives), a record (its key, its first occurrence, and the rows the deduplicated
   * table held for it) or a late dimension change (its row of the change log). Keys and values are JSON objects of
   * the values' text ({@link ValuesJson}).
   */
  public static final Schema PLAN = Schema.of(RUN_ID, BRANCH, ATTEMPT, KIND, TARGET, KEY, OLD_VALUE, NEW_VALUE,
      OLD_ROWS);

  private RestatementRecords() {}
}
