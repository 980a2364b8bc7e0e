package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the SCD2 dimension must change for some companies to equal their history rebuilt from the change log:
 * versions to insert or correct (upserts) and versions to remove, keyed on (company, valid from). The stream writes
 * it per batch, the restatement for the companies of late changes; the stream's Spark plan for large batches
 * computes the same, tested equal to this.
 */
public final class Scd2Difference {
  /** A version and what to do with it. */
  public record Change(CompanyVersion version, boolean upsert) {}

  private Scd2Difference() {}

  /** From the rebuilt history and the dimension's versions of the same companies. */
  public static List<Change> of(List<CompanyVersion> history, List<CompanyVersion> current) {
    Set<CompanyVersion> now = Set.copyOf(current);
    Set<CompanyVersion.Key> kept = history.stream().map(CompanyVersion::key).collect(Collectors.toSet());
    List<Change> diff = new ArrayList<>();
    history.stream().filter(v -> !now.contains(v)).distinct().forEach(v -> diff.add(new Change(v, true)));
    current.stream().filter(v -> !kept.contains(v.key())).forEach(v -> diff.add(new Change(v, false)));
    return diff;
  }
}
