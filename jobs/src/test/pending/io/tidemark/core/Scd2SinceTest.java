package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.Scd2Invariants;
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

  private static CompanyChange change(String company, String name, int minute) {
    return CompanyChange.set(company, name, "gold", at(minute));
  }

  private static CompanyChange delete(String company, int minute) {
    return CompanyChange.delete(company, at(minute));
  }

  /** What the check rebuilds: the published history ({@code log} rebuilt) before the staged changes, then the log. */
  private static List<CompanyVersion> rebuiltSince(List<CompanyChange> log, List<CompanyChange> staged) {
    Map<String, Long> from = Scd2Since.earliest(staged);
    List<CompanyChange> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log), from));
    List<CompanyChange> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    return Scd2History.rebuild(changes);
  }

  private static Set<CompanyVersion> values(List<CompanyVersion> versions) {
    return new HashSet<>(versions);
  }

  /** The history of the companies with staged changes, rebuilt from every change. */
  private static List<CompanyVersion> rebuilt(List<CompanyChange> log, List<CompanyChange> staged) {
    Set<String> touched = Scd2Since.earliest(staged).keySet();
    List<CompanyChange> all = new ArrayList<>(log);
    all.addAll(staged);
    return Scd2History.rebuild(all).stream().filter(v -> touched.contains(v.companyId())).toList();
  }

  @Test
  void aLateChangeBetweenTwoAlikeStatesSplitsTheVersionTheyMade() {
    // the repeat at minute 20 left no trace in the published versions (one version from minute 0)
    List<CompanyChange> log = List.of(change("c1", "Acme", 0), change("c1", "Acme", 20));
    List<CompanyChange> late = List.of(change("c1", "Bolt", 10));
    assertThat(values(rebuiltSince(log, late))).isEqualTo(values(rebuilt(log, late))).hasSize(3);
    // the published versions alone, as changes, lose the repeat: the history would end in Bolt
    List<CompanyChange> versionsOnly = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log),
        Map.of("c1", Long.MAX_VALUE)));
    versionsOnly.addAll(late);
    assertThat(values(Scd2History.rebuild(versionsOnly))).isNotEqualTo(values(rebuilt(log, late)));
  }

  @Test
  void aDeleteBeforeTheStagedChangesStaysAGap() {
    List<CompanyChange> log = List.of(change("c1", "Acme", 0), delete("c1", 10), change("c1", "Acme", 30));
    List<CompanyChange> staged = List.of(change("c1", "Bolt", 40));
    assertThat(values(rebuiltSince(log, staged))).isEqualTo(values(rebuilt(log, staged))).hasSize(3);
  }

  @Test
  void equalsTheRebuildFromEveryChangeOnRandomHistories() {
    SplittableRandom rng = new SplittableRandom(29);
    for (int round = 0; round < 2000; round++) {
      List<CompanyChange> log = randomChanges(rng, rng.nextInt(0, 12), 0, 60);
      // staged changes: mostly after the published ones, some late (anywhere in the past), some at the same instant
      List<CompanyChange> staged = randomChanges(rng, rng.nextInt(1, 5), rng.nextBoolean() ? 50 : 0, 70);
      assertThat(values(rebuiltSince(log, staged))).as("log %s, staged %s", log, staged)
          .isEqualTo(values(rebuilt(log, staged)));
    }
  }

  private static List<CompanyChange> randomChanges(SplittableRandom rng, int n, int fromMinute, int toMinute) {
    List<CompanyChange> out = new ArrayList<>();
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
  private static List<String> violations(List<CompanyChange> log, List<CompanyChange> staged,
                                         List<CompanyVersion> stagedVersions) throws Exception {
    Map<String, Long> from = Scd2Since.earliest(staged);
    List<CompanyChange> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log), from));
    List<CompanyChange> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, stagedVersions, Optional.of(changes)).stream()
          .map(Scd2Invariants.Violation::check).toList();
    }
  }

  @Test
  void anOldVersionOfATouchedCompanyIsStillChecked() throws Exception {
    List<CompanyChange> log = List.of(change("c1", "Acme", 0), change("c1", "Bolt", 10), change("c1", "Cale", 20));
    List<CompanyChange> staged = List.of(change("c1", "Dune", 50));
    List<CompanyVersion> good = rebuilt(log, staged);
    assertThat(violations(log, staged, good)).isEmpty();
    // the first version, long before the staged change, made to overlap the second
    List<CompanyVersion> overlapping = new ArrayList<>(good.stream().filter(v -> !v.validFrom().equals(at(0)))
        .toList());
    overlapping.add(new CompanyVersion("c1", "Acme", "gold", at(0), at(15), false));
    assertThat(violations(log, staged, overlapping)).contains("versions overlap",
        "version not in the history rebuilt from the changes");
    // an old version gone
    assertThat(violations(log, staged, good.stream().filter(v -> !v.validFrom().equals(at(10))).toList()))
        .contains("version of the rebuilt history missing");
  }
}
