package io.tidemark.core;

/** What an audit check says, as the audit table keeps it. */
public final class AuditRecords {
  public static final Column RUN_ID = RestatementRecords.RUN_ID;
  public static final Column BRANCH = RestatementRecords.BRANCH;
  public static final Column CHECK_NAME = Column.of("check_name", Type.STRING);
  public static final Column TARGET_TABLE = RestatementRecords.TARGET_TABLE;
  public static final Column PASSED = Column.of("passed", Type.BOOLEAN);
  public static final Column DETAIL = Column.of("detail", Type.STRING);
  public static final Column CHECKED_AT = Column.of("checked_at", Type.TIMESTAMP);

  /** A check's verdict (the table adds {@link #CHECKED_AT}). */
  public static final Schema CHECK = Schema.of(RUN_ID, BRANCH, CHECK_NAME, TARGET_TABLE, PASSED, DETAIL);

  private AuditRecords() {}
}
