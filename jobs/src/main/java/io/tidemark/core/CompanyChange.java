package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A company change ({@link CompanyChanges#FEED}) as the SCD2 history reads it: normalized, so {@code deleted} is never
 * missing and a delete carries no attributes (what it said besides does not matter). {@code more} holds the values
 * of the fields promoted into the feed ({@link CompanyChanges#attributes}), in their order: attributes like the name,
 * a change of which makes a new version.
 */
public record CompanyChange(String companyId, String name, String tier, Instant changeTs, boolean deleted,
                            List<Object> more) {
  public CompanyChange {
    List<Object> values = more == null ? List.of() : new ArrayList<>(more);
    if (deleted) {
      name = null;
      tier = null;
      Collections.fill(values, null);
    }
    more = Collections.unmodifiableList(values);
  }

  /** A change of the statically declared feed (no promoted field). */
  public CompanyChange(String companyId, String name, String tier, Instant changeTs, boolean deleted) {
    this(companyId, name, tier, changeTs, deleted, List.of());
  }

  /** A row of the feed's columns; a missing {@code deleted} is false. */
  public static CompanyChange of(Fields f) {
    return of(f, List.of());
  }

  /** A row of the feed's columns and of the fields promoted into it ({@code promoted}, in order). */
  public static CompanyChange of(Fields f, List<Column> promoted) {
    return new CompanyChange(f.string(CompanyChanges.COMPANY_ID), f.string(CompanyChanges.NAME),
        f.string(CompanyChanges.TIER), f.instant(CompanyChanges.CHANGE_TS),
        Boolean.TRUE.equals(f.bool(CompanyChanges.DELETED)), f.values(promoted));
  }

  public static CompanyChange set(String companyId, String name, String tier, Instant at) {
    return new CompanyChange(companyId, name, tier, at, false);
  }

  public static CompanyChange set(String companyId, String name, String tier, Instant at, List<Object> more) {
    return new CompanyChange(companyId, name, tier, at, false, more);
  }

  public static CompanyChange delete(String companyId, Instant at) {
    return new CompanyChange(companyId, null, null, at, true);
  }

  /** The values in the order of the feed's columns: the static ones, then the promoted ones. */
  public List<Object> values() {
    List<Object> out = new ArrayList<>(Arrays.asList(companyId, name, tier, changeTs, deleted));
    out.addAll(more);
    return out;
  }

  /** The attributes a version holds, in the order of {@link CompanyChanges#attributes}. */
  public List<Object> attributes() {
    List<Object> out = new ArrayList<>(Arrays.asList(name, tier));
    out.addAll(more);
    return out;
  }

  /** The same state as {@code o} sets: both deletes, or the same attributes. */
  public boolean sameState(CompanyChange o) {
    return deleted == o.deleted && (deleted || Objects.equals(attributes(), o.attributes()));
  }
}
