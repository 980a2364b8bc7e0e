package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A version of a company in the SCD2 dimension ({@link Dimension#version}). {@code current} is a Boolean: a version
 * written by hand may lack it, and the checks must say so rather than fail to read it. {@code more}: the values of the
 * attributes promoted into the companies feed, in order.
 */
public record CompanyVersion(String companyId, String name, String tier, Instant validFrom, Instant validTo,
                             Boolean current, List<Object> more) {
  public CompanyVersion {
    more = Collections.unmodifiableList(more == null ? new ArrayList<>() : new ArrayList<>(more));
  }

  /** A version of the statically declared companies (no promoted attribute). */
  public CompanyVersion(String companyId, String name, String tier, Instant validFrom, Instant validTo,
                        Boolean current) {
    this(companyId, name, tier, validFrom, validTo, current, List.of());
  }

  public static CompanyVersion of(Fields f) {
    return of(f, List.of());
  }

  /** A row of the dimension, with the attributes promoted into the feed ({@code promoted}, in order). */
  public static CompanyVersion of(Fields f, List<Column> promoted) {
    return new CompanyVersion(f.string(Dimension.COMPANY_ID), f.string(Dimension.NAME), f.string(Dimension.TIER),
        f.instant(Dimension.VALID_FROM), f.instant(Dimension.VALID_TO), f.bool(Dimension.IS_CURRENT),
        f.values(promoted));
  }

  /** Its identity in the dimension: the company and when it starts (what a MERGE matches on). */
  public Key key() {
    return new Key(companyId, validFrom);
  }

  public record Key(String companyId, Instant validFrom) {}

  /** The values in the order of {@link Dimension#version}'s columns. */
  public List<Object> values() {
    List<Object> out = new ArrayList<>(Arrays.asList(companyId, name, tier));
    out.addAll(more);
    out.addAll(Arrays.asList(validFrom, validTo, current));
    return out;
  }
}
