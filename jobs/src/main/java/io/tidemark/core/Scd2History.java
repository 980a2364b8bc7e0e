package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The SCD2 history of companies, rebuilt from their changes. Each change sets a company's state at its change time:
 * (name, tier), or deleted. The history is the sequence of states over time with repeats merged: a version starts
 * where the state changes and ends where the next one starts (or a delete closes it); the last one is open. Because
 * it is rebuilt from all changes of a company, a change that arrives out of order lands where it belongs, and a
 * version it makes identical to its neighbour disappears. Two different changes of one company at the same instant
 * are settled the same way everywhere: a delete wins, else the greater name, then tier, then each promoted attribute,
 * nulls least and values in Spark's order ({@link SqlOrder}). The stream's Spark plan for large batches follows the same rules, and is tested
 * equal to this over generated changes.
 */
public final class Scd2History {
  /** Of two changes at one instant, the one the history keeps comes first. */
  static final Comparator<CompanyChange> WINNER_FIRST = Comparator.comparing(CompanyChange::deleted).reversed()
      .thenComparing(CompanyChange::name, Comparator.nullsLast(SqlOrder.STRINGS.reversed()))
      .thenComparing(CompanyChange::tier, Comparator.nullsLast(SqlOrder.STRINGS.reversed()))
      .thenComparing(CompanyChange::more, SqlOrder.valuesDescendingNullsLast());

  private Scd2History() {}

  /** The versions of the companies the changes are of, company by company in the order they first come. */
  public static List<CompanyVersion> rebuild(List<CompanyChange> changes) {
    Map<String, List<CompanyChange>> byCompany = new LinkedHashMap<>();
    for (CompanyChange c : changes) {
      byCompany.computeIfAbsent(c.companyId(), k -> new ArrayList<>()).add(c);
    }
    List<CompanyVersion> versions = new ArrayList<>();
    for (List<CompanyChange> company : byCompany.values()) {
      List<CompanyChange> sorted = new ArrayList<>(company);
      sorted.sort(Comparator.comparing(CompanyChange::changeTs, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(WINNER_FIRST));
      List<CompanyChange> kept = new ArrayList<>();
      CompanyChange previous = null;
      for (CompanyChange c : sorted) {
        if (previous != null && Objects.equals(previous.changeTs(), c.changeTs())) {
          continue; // lost to the change before it at the same instant
        }
        boolean repeat = previous != null && previous.sameState(c);
        previous = c;
        if (!repeat) {
          kept.add(c);
        }
      }
      for (int i = 0; i < kept.size(); i++) {
        CompanyChange c = kept.get(i);
        Instant validTo = i + 1 < kept.size() ? kept.get(i + 1).changeTs() : null;
        if (!c.deleted()) {
          versions.add(new CompanyVersion(c.companyId(), c.name(), c.tier(), c.changeTs(), validTo, validTo == null,
              c.more()));
        }
      }
    }
    return versions;
  }
}
