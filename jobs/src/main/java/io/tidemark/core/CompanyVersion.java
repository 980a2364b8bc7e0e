package io.tidemark.core;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * A version of a company in the SCD2 dimension ({@link Dimension#VERSION}). {@code current} is a Boolean: a version
 * written by hand may lack it, and the checks must say so rather than fail to read it.
 */
public record CompanyVersion(String companyId, String name, String tier, Instant validFrom, Instant validTo,
                             Boolean current) {
  public static CompanyVersion of(Fields f) {
    return new CompanyVersion(f.string(Dimension.COMPANY_ID), f.string(Dimension.NAME), f.string(Dimension.TIER),
        f.instant(Dimension.VALID_FROM), f.instant(Dimension.VALID_TO), f.bool(Dimension.IS_CURRENT));
  }

  /** Its identity in the dimension: the company and when it starts (what a MERGE matches on). */
  public Key key() {
    return new Key(companyId, validFrom);
  }

  public record Key(String companyId, Instant validFrom) {}

  /** The values in the order of {@link Dimension#VERSION}'s columns. */
  public List<Object> values() {
    return Arrays.asList(companyId, name, tier, validFrom, validTo, current);
  }
}
