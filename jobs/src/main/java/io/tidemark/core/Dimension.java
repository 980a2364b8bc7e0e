package io.tidemark.core;

/**
 * The company dimension as SCD2: a version per company and stretch of time in one state, rebuilt from the company
 * changes ({@link Scd2History}). Its key and attributes are the change feed's.
 */
public final class Dimension {
  public static final Column COMPANY_ID = CompanyChanges.COMPANY_ID;
  public static final Column NAME = CompanyChanges.NAME;
  public static final Column TIER = CompanyChanges.TIER;
  /** When the version starts: the change time that set its state. */
  public static final Column VALID_FROM = Column.of("valid_from", Type.TIMESTAMP);
  /** When it ends (the next change, or a delete); null for the open version. */
  public static final Column VALID_TO = Column.of("valid_to", Type.TIMESTAMP);
  public static final Column IS_CURRENT = Column.of("is_current", Type.BOOLEAN);

  /** A version. */
  public static final Schema VERSION = version(CompanyChanges.FEED);

  /** A version of the companies as declared when a job runs: every attribute, promoted ones too. */
  public static Schema version(FeedSchema companies) {
    return Schema.of(COMPANY_ID).plus(new Schema(CompanyChanges.attributes(companies)))
        .plus(VALID_FROM, VALID_TO, IS_CURRENT);
  }

  private Dimension() {}
}
