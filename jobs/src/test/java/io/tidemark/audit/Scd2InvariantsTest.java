package io.tidemark.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Timestamp;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

/** The SCD2 rules as DuckDB runs them over rows on the driver (Scd2IT checks that Spark gives the same verdicts). */
class Scd2InvariantsTest {
  private static Timestamp at(String hhmm) {
    return Timestamp.valueOf("2026-01-01 " + hhmm + ":00");
  }

  private static final List<Row> CHANGES = List.of(
      RowFactory.create("c1", "Acme", "gold", at("00:00"), false),
      RowFactory.create("c1", "Acme", "platinum", at("01:00"), false),
      RowFactory.create("c2", "Bolt", "silver", at("00:00"), false),
      RowFactory.create("c2", null, null, at("03:00"), true),
      RowFactory.create("c2", "Bolt", "gold", at("04:00"), false));

  private static List<String> violations(List<Row> versions) throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      return Scd2Invariants.check(db, versions, Optional.of(CHANGES)).stream().map(Scd2Invariants.Violation::check)
          .toList();
    }
  }

  @Test
  void theCorrectHistoryPassesAndTheMutantsFail() throws Exception {
    List<Row> good = List.of(
        RowFactory.create("c1", "Acme", "gold", at("00:00"), at("01:00"), false),
        RowFactory.create("c1", "Acme", "platinum", at("01:00"), null, true),
        RowFactory.create("c2", "Bolt", "silver", at("00:00"), at("03:00"), false),
        RowFactory.create("c2", "Bolt", "gold", at("04:00"), null, true));
    assertThat(violations(good)).as("the correct history, with a gap after c2's delete").isEmpty();
    assertThat(violations(List.of(RowFactory.create("c1", "Acme", "platinum", at("00:00"), null, true),
        RowFactory.create("c2", "Bolt", "gold", at("00:00"), null, true)))).as("SCD1 overwrite")
        .contains("version not in the history rebuilt from the changes", "version of the rebuilt history missing");
    assertThat(violations(List.of(good.get(0), good.get(1), good.get(1)))).as("a version twice")
        .contains("more than one open version", "two versions start at the same time");
    assertThat(violations(List.of(RowFactory.create("c1", "Acme", "gold", at("00:00"), at("01:10"), false),
        good.get(1), good.get(2), good.get(3)))).as("overlap").contains("versions overlap");
    assertThat(violations(List.of(RowFactory.create("c1", "Acme", "gold", at("00:00"), at("00:50"), false),
        good.get(1), good.get(2), good.get(3)))).as("gap").contains("gap between versions without a delete");
  }
}
