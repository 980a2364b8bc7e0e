package io.tidemark.audit;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Type;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The SCD2 rules as DuckDB runs them over rows on the driver (Scd2IT checks that Spark gives the same verdicts). */
class Scd2InvariantsTest {
  private static Instant at(String hhmm) {
    return Instant.parse("2026-01-01T" + hhmm + ":00Z");
  }

  private static final List<CompanyChange> CHANGES = List.of(
      CompanyChange.set("c1", "Acme", "gold", at("00:00")),
      CompanyChange.set("c1", "Acme", "platinum", at("01:00")),
      CompanyChange.set("c2", "Bolt", "silver", at("00:00")),
      CompanyChange.delete("c2", at("03:00")),
      CompanyChange.set("c2", "Bolt", "gold", at("04:00")));

  private static CompanyVersion version(String company, String name, String tier, Instant from, Instant to,
                                        boolean current) {
    return new CompanyVersion(company, name, tier, from, to, current);
  }

  private static List<String> violations(List<CompanyVersion> versions) throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, versions, Optional.of(CHANGES)).stream().map(Scd2Invariants.Violation::check)
          .toList();
    }
  }

  @Test
  void theCorrectHistoryPassesAndTheMutantsFail() throws Exception {
    List<CompanyVersion> good = List.of(
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
    FeedSchema promoted = Seed.CHANGES.with(Column.of("region", Type.STRING));
    List<CompanyChange> changes = List.of(
        CompanyChange.set("c1", "Acme", "gold", at("00:00"), Arrays.asList("eu")),
        CompanyChange.set("c1", "Acme", "gold", at("01:00"), Arrays.asList("us")));
    List<CompanyVersion> good = List.of(
        new CompanyVersion("c1", "Acme", "gold", at("00:00"), at("01:00"), false, Arrays.asList("eu")),
        new CompanyVersion("c1", "Acme", "gold", at("01:00"), null, true, Arrays.asList("us")));
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      assertThat(Scd2Invariants.check(db, good, Optional.of(changes), promoted)).isEmpty();
      List<CompanyVersion> alike = List.of(good.get(0),
          new CompanyVersion("c1", "Acme", "gold", at("01:00"), null, true, Arrays.asList("eu")));
      assertThat(Scd2Invariants.check(db, alike, Optional.of(changes), promoted))
          .extracting(Scd2Invariants.Violation::check)
          .contains("neighbouring versions alike", "version not in the history rebuilt from the changes");
      List<CompanyVersion> merged = List.of(
          new CompanyVersion("c1", "Acme", "gold", at("00:00"), null, true, Arrays.asList("eu")));
      assertThat(Scd2Invariants.check(db, merged, Optional.of(changes), promoted))
          .as("the version the promoted attribute splits, left whole").extracting(Scd2Invariants.Violation::check)
          .contains("version of the rebuilt history missing");
    }
  }
}
