package io.tidemark.core;

import java.util.List;

/** The company changes feed: a company's new name and tier from a moment on, or {@code "deleted": true}. */
public final class CompanyChanges {
  public static final Column COMPANY_ID = Column.of("company_id", Type.STRING);
  public static final Column NAME = Column.of("name", Type.STRING);
  public static final Column TIER = Column.of("tier", Type.STRING);
  public static final Column CHANGE_TS = Column.of("change_ts", Type.TIMESTAMP);
  public static final Column DELETED = Column.of("deleted", Type.BOOLEAN);

  /** A change as it lands and as the SCD2 change log keeps it (normalized). */
  public static final FeedSchema FEED = new FeedSchema("companies",
      Schema.of(COMPANY_ID, NAME, TIER, CHANGE_TS, DELETED), COMPANY_ID, CHANGE_TS, List.of(COMPANY_ID, CHANGE_TS));

  /** The attributes a change sets, and a version of the dimension holds: what makes two states alike. */
  public static final List<Column> ATTRIBUTES = List.of(NAME, TIER);

  /**
   * The attributes of the feed as declared when a job runs: the static ones, then each field promoted into it (a
   * change of a promoted field makes a new version, as a change of a name does).
   */
  public static List<Column> attributes(FeedSchema companies) {
    List<Column> out = new java.util.ArrayList<>(ATTRIBUTES);
    out.addAll(companies.beyond(FEED));
    return List.copyOf(out);
  }

  private CompanyChanges() {}
}
