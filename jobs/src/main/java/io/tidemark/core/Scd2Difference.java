package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What an SCD2 dimension must change for some keys to equal their history rebuilt from the change log: versions to
 * insert or correct (upserts) and versions to remove, keyed on (key, valid from). The stream writes it per batch, the
 * restatement for the keys of late changes; the stream's Spark plan for large batches computes the same, tested equal
 * to this.
 */
public final class Scd2Difference {
  /** A version and what to do with it. */
  public record Step(Version version, boolean upsert) {}

  private Scd2Difference() {}

  /** From the rebuilt history and the dimension's versions of the same keys. */
  public static List<Step> of(List<Version> history, List<Version> current) {
    Set<Version> now = Set.copyOf(current);
    Set<Version.Id> kept = history.stream().map(Version::id).collect(Collectors.toSet());
    List<Step> diff = new ArrayList<>();
    history.stream().filter(v -> !now.contains(v)).distinct().forEach(v -> diff.add(new Step(v, true)));
    current.stream().filter(v -> !kept.contains(v.id())).forEach(v -> diff.add(new Step(v, false)));
    return diff;
  }
}
