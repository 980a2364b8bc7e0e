package io.tidemark.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Type;
import io.tidemark.core.Version;
import io.tidemark.testing.Seed;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The SCD2 rules as DuckDB runs them over rows on the driver (Scd2IT checks that Spark gives the same verdicts). */
class Scd2InvariantsTest {
  private static Instant at(String hhmm) {
    return Instant.parse("2026-01-01T" + hhmm + ":00Z");
  }

  private static final List<Change> CHANGES = List.of(
      Seed.change("c1", "Acme", "gold", at("00:00")),
      Seed.change("c1", "Acme", "platinum", at("01:00")),
      Seed.change("c2", "Bolt", "silver", at("00:00")),
      Seed.delete("c2", at("03:00")),
      Seed.change("c2", "Bolt", "gold", at("04:00")));

  private static Version version(String company, String name, String tier, Instant from, Instant to,
                                 boolean current) {
    return Seed.version(company, name, tier, from, to, current);
  }

  private static List<String> violations(List<Version> versions) throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, versions, Optional.of(CHANGES), Seed.COMPANIES).stream()
          .map(Scd2Invariants.Violation::check).toList();
    }
  }

  @Test
  void theCorrectHistoryPassesAndTheMutantsFail() throws Exception {
    List<Version> good = List.of(
        version("c1", "Acme", "gold", at("00:00"), at("01:00"), false),
        version("c1", "Acme", "platinum", at("01:00"), null, true),
        version("c2", "Bolt", "silver", at("00:00"), at("03:00"), false),
        version("c2", "Bolt", "gold", at("04:00"), null, true));
    assertThat(violations(good)).as("the correct history, with a gap after c2's delete").isEmpty();
    assertThat(violations(List.of(version("c1", "Acme", "platinum", at("00:00"), null, true),
        version("c2", "Bolt", "gold", at("00:00"), null, true)))).as("SCD1 overwrite")
        .contains("version not in the history rebuilt from the changes", "version of the rebuilt history missing");
    assertThat(violations(List.of(good.get(0), good.get(1), good.get(1)))).as("a version twice")
        .contains("more than one open version", "two versions start at the same time");
    assertThat(violations(List.of(version("c1", "Acme", "gold", at("00:00"), at("01:10"), false),
        good.get(1), good.get(2), good.get(3)))).as("overlap").contains("versions overlap");
    assertThat(violations(List.of(version("c1", "Acme", "gold", at("00:00"), at("00:50"), false),
        good.get(1), good.get(2), good.get(3)))).as("gap").contains("gap between versions without a delete");
  }

  @Test
  void versionsThatDifferOnlyInAPromotedAttributeAreNotAlikeNeighbours() throws Exception {
    DimensionSchema promoted = Seed.COMPANIES.with(Column.of("region", Type.STRING));
    List<Change> changes = List.of(
        Seed.change("c1", "Acme", "gold", at("00:00"), "eu"),
        Seed.change("c1", "Acme", "gold", at("01:00"), "us"));
    List<Version> good = List.of(
        Seed.version("c1", "Acme", "gold", at("00:00"), at("01:00"), false, "eu"),
        Seed.version("c1", "Acme", "gold", at("01:00"), null, true, "us"));
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      assertThat(Scd2Invariants.check(db, good, Optional.of(changes), promoted)).isEmpty();
      List<Version> alike = List.of(good.get(0),
          Seed.version("c1", "Acme", "gold", at("01:00"), null, true, "eu"));
      assertThat(Scd2Invariants.check(db, alike, Optional.of(changes), promoted))
          .extracting(Scd2Invariants.Violation::check)
          .contains("neighbouring versions alike", "version not in the history rebuilt from the changes");
      List<Version> merged = List.of(
          Seed.version("c1", "Acme", "gold", at("00:00"), null, true, "eu"));
      assertThat(Scd2Invariants.check(db, merged, Optional.of(changes), promoted))
          .as("the version the promoted attribute splits, left whole").extracting(Scd2Invariants.Violation::check)
          .contains("version of the rebuilt history missing");
    }
  }

  @Test
  void aCompositeKeyAndAStringDeleteMarkerAreCheckedAsTheSeedsAre() throws Exception {
    // a dimension unlike the seed's: keyed on two columns, a delete marked by op = 'D', one tracked attribute
    Column region = Column.of("region", Type.STRING);
    Column store = Column.of("store", Type.INT);
    Column segment = Column.of("segment", Type.STRING);
    Column at = Column.of("changed_at", Type.TIMESTAMP);
    Column op = Column.of("op", Type.STRING);
    io.tidemark.core.FeedSchema feed = new io.tidemark.core.FeedSchema("stores",
        io.tidemark.core.Schema.of(region, store, segment, at, op), List.of(region, store), at,
        List.of(region, store, at));
    DimensionSchema stores = new DimensionSchema(feed, List.of(segment),
        new io.tidemark.core.DeleteMarker(op, "D"));
    List<Change> changes = List.of(
        Change.set(List.of("eu", 1), at("00:00"), List.of("a")),
        Change.set(List.of("eu", 2), at("00:00"), List.of("a")),
        Change.delete(List.of("eu", 1), at("01:00"), 1),
        Change.set(List.of("eu", 1), at("02:00"), List.of("b")));
    List<Version> good = List.of(
        new Version(List.of("eu", 1), List.of("a"), at("00:00"), at("01:00"), false),
        new Version(List.of("eu", 1), List.of("b"), at("02:00"), null, true),
        new Version(List.of("eu", 2), List.of("a"), at("00:00"), null, true));
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      assertThat(Scd2Invariants.check(db, good, Optional.of(changes), stores)).as("a gap a delete left").isEmpty();
      List<Version> gap = List.of(good.get(0), good.get(1),
          new Version(List.of("eu", 2), List.of("a"), at("00:00"), at("00:30"), false),
          new Version(List.of("eu", 2), List.of("b"), at("01:00"), null, true));
      assertThat(Scd2Invariants.check(db, gap, Optional.of(changes), stores))
          .as("the other key of the same region gets no gap from its neighbour's delete")
          .extracting(Scd2Invariants.Violation::check).contains("gap between versions without a delete");
    }
  }
}
