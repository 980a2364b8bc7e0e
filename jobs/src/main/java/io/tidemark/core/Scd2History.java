package io.tidemark.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The SCD2 history of a dimension's keys, rebuilt from their changes. Each change sets a key's state at its change
 * time: its tracked attributes, or deleted. The history is the sequence of states over time with repeats merged: a
 * version starts where the state changes and ends where the next one starts (or a delete closes it); the last one is
 * open. Because it is rebuilt from all changes of a key, a change that arrives out of order lands where it belongs,
 * and a version it makes identical to its neighbour disappears. Two different changes of one key at the same instant
 * are settled the same way everywhere: a delete wins, else the greater attributes, compared one by one in their order,
 * nulls least and values in Spark's order ({@link SqlOrder}). The stream's Spark plan for large batches follows the
 * same rules, and is tested equal to this over generated changes.
 */
public final class Scd2History {
  /** Of two changes at one instant, the one the history keeps comes first. */
  static final Comparator<Change> WINNER_FIRST = Comparator.comparing(Change::deleted).reversed()
      .thenComparing(Change::attributes, SqlOrder.valuesDescendingNullsLast());

  private Scd2History() {}

  /** The versions of the keys the changes are of, key by key in the order they first come. */
  public static List<Version> rebuild(List<Change> changes) {
    Map<List<Object>, List<Change>> byKey = new LinkedHashMap<>();
    for (Change c : changes) {
      byKey.computeIfAbsent(c.key(), k -> new ArrayList<>()).add(c);
    }
    List<Version> versions = new ArrayList<>();
    for (List<Change> ofKey : byKey.values()) {
      List<Change> sorted = new ArrayList<>(ofKey);
      sorted.sort(Comparator.comparing(Change::at, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
          .thenComparing(WINNER_FIRST));
      List<Change> kept = new ArrayList<>();
      Change previous = null;
      for (Change c : sorted) {
        if (previous != null && Objects.equals(previous.at(), c.at())) {
          continue; // lost to the change before it at the same instant
        }
        boolean repeat = previous != null && previous.sameState(c);
        previous = c;
        if (!repeat) {
          kept.add(c);
        }
      }
      for (int i = 0; i < kept.size(); i++) {
        Change c = kept.get(i);
        Instant validTo = i + 1 < kept.size() ? kept.get(i + 1).at() : null;
        if (!c.deleted()) {
          versions.add(new Version(c.key(), c.attributes(), c.at(), validTo, validTo == null));
        }
      }
    }
    return versions;
  }
}
