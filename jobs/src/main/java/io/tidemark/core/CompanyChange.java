package io.tidemark.core;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * A company change ({@link CompanyChanges#FEED}) as the SCD2 history reads it: normalized, so {@code deleted} is never
 * missing and a delete carries no attributes (what it said besides does not matter).
 */
public record CompanyChange(String companyId, String name, String tier, Instant changeTs, boolean deleted) {
  public CompanyChange {
    if (deleted) {
      name = null;
      tier = null;
    }
  }

  /** A row of the feed's columns; a missing {@code deleted} is false. */
  public static CompanyChange of(Fields f) {
    return new CompanyChange(f.string(CompanyChanges.COMPANY_ID), f.string(CompanyChanges.NAME),
        f.string(CompanyChanges.TIER), f.instant(CompanyChanges.CHANGE_TS),
        Boolean.TRUE.equals(f.bool(CompanyChanges.DELETED)));
  }

  public static CompanyChange set(String companyId, String name, String tier, Instant at) {
    return new CompanyChange(companyId, name, tier, at, false);
  }

  public static CompanyChange delete(String companyId, Instant at) {
    return new CompanyChange(companyId, null, null, at, true);
  }

  /** The values in the order of {@link CompanyChanges#FEED}'s columns. */
  public List<Object> values() {
    return Arrays.asList(companyId, name, tier, changeTs, deleted);
  }

  /** The same state as {@code o} sets: both deletes, or the same attributes. */
  public boolean sameState(CompanyChange o) {
    return deleted == o.deleted && java.util.Objects.equals(name, o.name) && java.util.Objects.equals(tier, o.tier);
  }
}
