package io.tidemark.evolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.DuckDbRows;
import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.DeleteMarker;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Version;
import io.tidemark.testing.Seed;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The audit of a dimension's promotion rebuilds the history in DuckDB's SQL ({@link BackfillAudit#rebuild}): over
 * generated changes whose promoted attribute alone often changes (ties at one instant, repeats, deletes, nulls), it
 * gives what the core's rules give, so a dimension it passes is one the stream would have kept.
 */
class BackfillOracleTest {
  private static final DimensionSchema PROMOTED = Seed.COMPANIES.with(Column.of("region", Type.STRING));
  private static final String[] REGIONS = {"eu", "EU", "us", null};

  @Test
  void duckDbsRebuildIsTheCoresRules() throws Exception {
    SplittableRandom rng = new SplittableRandom(41);
    List<Change> changes = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      String company = "c" + rng.nextInt(40);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(10));
      changes.add(rng.nextDouble() < 0.1 ? Seed.delete(company, at, 3)
          : Seed.change(company, rng.nextDouble() < 0.8 ? "Acme" : null, "gold", at,
              REGIONS[rng.nextInt(REGIONS.length)]));
    }
    assertRebuildIsTheCores(PROMOTED, changes, v -> String.valueOf(v.key().get(0)));
  }

  /** A dimension unlike the seed's: a composite key (a string and a date), a string delete marker, an int promoted. */
  @Test
  void duckDbsRebuildIsTheCoresRulesOnACompositeKeyAndAStringMarker() throws Exception {
    Column shop = Column.of("shop", Type.STRING);
    Column day = Column.of("day", Type.DATE);
    Column segment = Column.of("segment", Type.STRING);
    Column at = Column.of("changed_at", Type.TIMESTAMP);
    Column op = Column.of("op", Type.STRING);
    FeedSchema feed = new FeedSchema("stores", Schema.of(shop, day, segment, at, op), List.of(shop, day), at,
        List.of(shop, day, at));
    DimensionSchema stores = new DimensionSchema(feed, List.of(segment), new DeleteMarker(op, "D"))
        .with(Column.of("lanes", Type.INT));
    Integer[] lanes = {1, 2, -1, null};
    SplittableRandom rng = new SplittableRandom(43);
    List<Change> changes = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      List<Object> key = List.of("s" + rng.nextInt(10), java.time.LocalDate.of(1969, 12, 30 + rng.nextInt(2)));
      Instant t = Instant.parse("1969-12-31T23:55:00Z").plusSeconds(60L * rng.nextInt(10));
      changes.add(rng.nextDouble() < 0.1 ? Change.delete(key, t, 2) : Change.set(key, t,
          Arrays.asList(rng.nextDouble() < 0.8 ? "a" : null, lanes[rng.nextInt(lanes.length)])));
    }
    assertRebuildIsTheCores(stores, changes, v -> v.key().get(0) + "|" + v.key().get(1));
  }

  private static void assertRebuildIsTheCores(DimensionSchema d, List<Change> changes,
                                              Function<Version, String> name) throws Exception {
    List<Change> log = changes.stream().distinct().toList();
    List<Version> expected = Scd2History.rebuild(log);
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      DuckDbRows.create(db, "log", d.logged(), log.stream().map(d::logRow).toList());
      DuckDbRows.create(db, "expected", d.version(), expected.stream().map(Version::values).toList());
      st.execute("CREATE TABLE got AS " + BackfillAudit.rebuild("log", d));
      String cols = d.version().names().stream().map(c -> "\"" + c + "\"").collect(Collectors.joining(", "));
      String key = d.key().stream().map(c -> "CAST(\"" + c.name() + "\" AS VARCHAR)")
          .collect(Collectors.joining(" || '|' || "));
      List<String> differ = DuckDbRows.firstColumn(db, "SELECT " + key + " || ' ' || CAST(valid_from AS VARCHAR) "
          + "FROM ((SELECT " + cols + " FROM got EXCEPT ALL SELECT " + cols + " FROM expected) UNION ALL (SELECT "
          + cols + " FROM expected EXCEPT ALL SELECT " + cols + " FROM got))");
      assertThat(differ).isEmpty();
      assertThat(expected).isNotEmpty();
      assertThat(expected).as("versions where only the promoted attribute changed")
          .anyMatch(v -> expected.stream().anyMatch(w -> name.apply(w).equals(name.apply(v))
              && w.validFrom().equals(v.validTo()) && java.util.Objects.equals(w.attributes().get(0),
              v.attributes().get(0)) && !java.util.Objects.equals(w.attributes(), v.attributes())));
    }
  }

  @Test
  void theLogsBackfillMatchesNonDeletesOnEveryOtherColumnAndTakesTheGreatestValue() {
    String sql = DimensionPromotion.backfillLog("log", "raw", "region", Seed.COMPANIES);
    assertThat(sql).contains("max(`region`) AS v", "NOT coalesce(deleted = TRUE, false)",
        "l.company_id <=> r.company_id", "l.name <=> r.name", "l.tier <=> r.tier", "l.change_ts <=> r.change_ts",
        "NOT coalesce(l.deleted = TRUE, false)", "WHEN MATCHED AND l.`region` IS NULL");
  }
}
