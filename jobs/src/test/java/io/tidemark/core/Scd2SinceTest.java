package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.Scd2Invariants;
import io.tidemark.testing.Seed;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The publish gate's SCD2 check rebuilds a touched company's history from its published versions before its earliest
 * staged change and the logged changes from then on; these tests hold that to the rebuild from every change.
 */
class Scd2SinceTest {
  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  private static Change change(String company, String name, int minute) {
    return Seed.change(company, name, "gold", at(minute));
  }

  private static Change delete(String company, int minute) {
    return Seed.delete(company, at(minute));
  }

  /** What the check rebuilds: the published history ({@code log} rebuilt) before the staged changes, then the log. */
  private static List<Version> rebuiltSince(List<Change> log, List<Change> staged) {
    Map<List<Object>, Long> from = Scd2Since.earliest(staged);
    List<Change> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log), from));
    List<Change> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    return Scd2History.rebuild(changes);
  }

  private static Set<Version> values(List<Version> versions) {
    return new HashSet<>(versions);
  }

  /** The history of the companies with staged changes, rebuilt from every change. */
  private static List<Version> rebuilt(List<Change> log, List<Change> staged) {
    Set<List<Object>> touched = Scd2Since.earliest(staged).keySet();
    List<Change> all = new ArrayList<>(log);
    all.addAll(staged);
    return Scd2History.rebuild(all).stream().filter(v -> touched.contains(v.key())).toList();
  }

  @Test
  void aLateChangeBetweenTwoAlikeStatesSplitsTheVersionTheyMade() {
    // the repeat at minute 20 left no trace in the published versions (one version from minute 0)
    List<Change> log = List.of(change("c1", "Acme", 0), change("c1", "Acme", 20));
    List<Change> late = List.of(change("c1", "Bolt", 10));
    assertThat(values(rebuiltSince(log, late))).isEqualTo(values(rebuilt(log, late))).hasSize(3);
    // the published versions alone, as changes, lose the repeat: the history would end in Bolt
    List<Change> versionsOnly = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log),
        Map.of(List.of("c1"), Long.MAX_VALUE)));
    versionsOnly.addAll(late);
    assertThat(values(Scd2History.rebuild(versionsOnly))).isNotEqualTo(values(rebuilt(log, late)));
  }

  @Test
  void aDeleteBeforeTheStagedChangesStaysAGap() {
    List<Change> log = List.of(change("c1", "Acme", 0), delete("c1", 10), change("c1", "Acme", 30));
    List<Change> staged = List.of(change("c1", "Bolt", 40));
    assertThat(values(rebuiltSince(log, staged))).isEqualTo(values(rebuilt(log, staged))).hasSize(3);
  }

  @Test
  void equalsTheRebuildFromEveryChangeOnRandomHistories() {
    SplittableRandom rng = new SplittableRandom(29);
    for (int round = 0; round < 2000; round++) {
      List<Change> log = randomChanges(rng, rng.nextInt(0, 12), 0, 60);
      // staged changes: mostly after the published ones, some late (anywhere in the past), some at the same instant
      List<Change> staged = randomChanges(rng, rng.nextInt(1, 5), rng.nextBoolean() ? 50 : 0, 70);
      assertThat(values(rebuiltSince(log, staged))).as("log %s, staged %s", log, staged)
          .isEqualTo(values(rebuilt(log, staged)));
    }
  }

  @Test
  void equalsTheRebuildFromEveryChangeOnRandomHistoriesOfCompositeKeys() {
    // keys of two columns that share their values column by column, before 1970, ties at one instant
    SplittableRandom rng = new SplittableRandom(31);
    List<List<Object>> keys = List.of(List.of("a", 1L), List.of("a", 2L), List.of("b", 1L));
    Instant t0 = Instant.parse("1969-12-31T23:30:00Z");
    for (int round = 0; round < 1000; round++) {
      List<Change> log = new ArrayList<>();
      List<Change> staged = new ArrayList<>();
      int fromMinute = rng.nextBoolean() ? 50 : 0;
      for (List<Change> into : List.of(log, staged)) {
        int n = into == log ? rng.nextInt(0, 12) : rng.nextInt(1, 5);
        for (int i = 0; i < n; i++) {
          List<Object> key = keys.get(rng.nextInt(keys.size()));
          Instant at = t0.plusSeconds(60L * (into == log ? rng.nextInt(0, 60) : rng.nextInt(fromMinute, 70)));
          into.add(rng.nextDouble() < 0.2 ? Change.delete(key, at, 2)
              : Change.set(key, at, java.util.Arrays.asList(rng.nextBoolean() ? "x" : null, rng.nextInt(2))));
        }
      }
      assertThat(values(rebuiltSince(log, staged))).as("log %s, staged %s", log, staged)
          .isEqualTo(values(rebuilt(log, staged)));
    }
  }

  private static List<Change> randomChanges(SplittableRandom rng, int n, int fromMinute, int toMinute) {
    List<Change> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String company = "c" + rng.nextInt(1, 4);
      int minute = rng.nextInt(fromMinute, toMinute);
      // few states, so that repeats and same-instant changes are common
      out.add(rng.nextDouble() < 0.2 ? delete(company, minute)
          : change(company, rng.nextBoolean() ? "Acme" : "Bolt", minute));
    }
    return out;
  }

  /** The check as the gate runs it: rebuilt from the published versions and the changes since, against the staged. */
  private static List<String> violations(List<Change> log, List<Change> staged,
                                         List<Version> stagedVersions) throws Exception {
    Map<List<Object>, Long> from = Scd2Since.earliest(staged);
    List<Change> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log), from));
    List<Change> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, stagedVersions, Optional.of(changes), Seed.COMPANIES).stream()
          .map(Scd2Invariants.Violation::check).toList();
    }
  }

  @Test
  void anOldVersionOfATouchedCompanyIsStillChecked() throws Exception {
    List<Change> log = List.of(change("c1", "Acme", 0), change("c1", "Bolt", 10), change("c1", "Cale", 20));
    List<Change> staged = List.of(change("c1", "Dune", 50));
    List<Version> good = rebuilt(log, staged);
    assertThat(violations(log, staged, good)).isEmpty();
    // the first version, long before the staged change, made to overlap the second
    List<Version> overlapping = new ArrayList<>(good.stream().filter(v -> !v.validFrom().equals(at(0)))
        .toList());
    overlapping.add(Seed.version("c1", "Acme", "gold", at(0), at(15), false));
    assertThat(violations(log, staged, overlapping)).contains("versions overlap",
        "version not in the history rebuilt from the changes");
    // an old version gone
    assertThat(violations(log, staged, good.stream().filter(v -> !v.validFrom().equals(at(10))).toList()))
        .contains("version of the rebuilt history missing");
  }
}
