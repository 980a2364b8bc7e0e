package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.Scd2Invariants;
import io.tidemark.stream.Scd2History;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

/**
 * The publish gate's SCD2 check rebuilds a touched company's history from its published versions before its earliest
 * staged change and the logged changes from then on; these tests hold that to the rebuild from every change.
 */
class Scd2SinceTest {
  private static Timestamp at(int minute) {
    return Timestamp.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute));
  }

  private static Row change(String company, String name, int minute) {
    return RowFactory.create(company, name, "gold", at(minute), false);
  }

  private static Row delete(String company, int minute) {
    return RowFactory.create(company, null, null, at(minute), true);
  }

  /** What the check rebuilds: the published history ({@code log} rebuilt) before the staged changes, then the log. */
  private static List<Row> rebuiltSince(List<Row> log, List<Row> staged) {
    Map<String, Long> from = Scd2Since.earliest(staged);
    List<Row> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuildRows(log), from));
    List<Row> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    return Scd2History.rebuildRows(changes);
  }

  private static Set<List<Object>> values(List<Row> rows) {
    Set<List<Object>> out = new HashSet<>();
    rows.forEach(r -> out.add(IntStream.range(0, r.size()).mapToObj(r::get).toList()));
    return out;
  }

  /** The history of the companies with staged changes, rebuilt from every change. */
  private static List<Row> rebuilt(List<Row> log, List<Row> staged) {
    Set<String> touched = Scd2Since.earliest(staged).keySet();
    List<Row> all = new ArrayList<>(log);
    all.addAll(staged);
    return Scd2History.rebuildRows(all).stream().filter(v -> touched.contains(v.getString(0))).toList();
  }

  @Test
  void aLateChangeBetweenTwoAlikeStatesSplitsTheVersionTheyMade() {
    // the repeat at minute 20 left no trace in the published versions (one version from minute 0)
    List<Row> log = List.of(change("c1", "Acme", 0), change("c1", "Acme", 20));
    List<Row> late = List.of(change("c1", "Bolt", 10));
    assertThat(values(rebuiltSince(log, late))).isEqualTo(values(rebuilt(log, late))).hasSize(3);
    // the published versions alone, as changes, lose the repeat: the history would end in Bolt
    List<Row> versionsOnly = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuildRows(log),
        Map.of("c1", Long.MAX_VALUE)));
    versionsOnly.addAll(late);
    assertThat(values(Scd2History.rebuildRows(versionsOnly))).isNotEqualTo(values(rebuilt(log, late)));
  }

  @Test
  void aDeleteBeforeTheStagedChangesStaysAGap() {
    List<Row> log = List.of(change("c1", "Acme", 0), delete("c1", 10), change("c1", "Acme", 30));
    List<Row> staged = List.of(change("c1", "Bolt", 40));
    assertThat(values(rebuiltSince(log, staged))).isEqualTo(values(rebuilt(log, staged))).hasSize(3);
  }

  @Test
  void equalsTheRebuildFromEveryChangeOnRandomHistories() {
    SplittableRandom rng = new SplittableRandom(29);
    for (int round = 0; round < 2000; round++) {
      List<Row> log = randomChanges(rng, rng.nextInt(0, 12), 0, 60);
      // staged changes: mostly after the published ones, some late (anywhere in the past), some at the same instant
      List<Row> staged = randomChanges(rng, rng.nextInt(1, 5), rng.nextBoolean() ? 50 : 0, 70);
      assertThat(values(rebuiltSince(log, staged))).as("log %s, staged %s", log, staged)
          .isEqualTo(values(rebuilt(log, staged)));
    }
  }

  private static List<Row> randomChanges(SplittableRandom rng, int n, int fromMinute, int toMinute) {
    List<Row> out = new ArrayList<>();
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
  private static List<String> violations(List<Row> log, List<Row> staged, List<Row> stagedVersions) throws Exception {
    Map<String, Long> from = Scd2Since.earliest(staged);
    List<Row> changes = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuildRows(log), from));
    List<Row> all = new ArrayList<>(log);
    all.addAll(staged);
    all.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, stagedVersions, Optional.of(changes)).stream()
          .map(Scd2Invariants.Violation::check).toList();
    }
  }

  @Test
  void anOldVersionOfATouchedCompanyIsStillChecked() throws Exception {
    List<Row> log = List.of(change("c1", "Acme", 0), change("c1", "Bolt", 10), change("c1", "Cale", 20));
    List<Row> staged = List.of(change("c1", "Dune", 50));
    List<Row> good = rebuilt(log, staged);
    assertThat(violations(log, staged, good)).isEmpty();
    // the first version, long before the staged change, made to overlap the second
    List<Row> overlapping = new ArrayList<>(good.stream().filter(v -> !v.get(3).equals(at(0))).toList());
    overlapping.add(RowFactory.create("c1", "Acme", "gold", at(0), at(15), false));
    assertThat(violations(log, staged, overlapping)).contains("versions overlap",
        "version not in the history rebuilt from the changes");
    // an old version gone
    assertThat(violations(log, staged, good.stream().filter(v -> !v.get(3).equals(at(10))).toList()))
        .contains("version of the rebuilt history missing");
  }
}
