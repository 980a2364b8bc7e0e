package io.tidemark.evolve;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.audit.DuckDbRows;
import io.tidemark.core.Column;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Type;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The audit of a company promotion rebuilds the history in DuckDB's SQL ({@link BackfillAudit#rebuild}): over generated
 * changes whose promoted attribute alone often changes (ties at one instant, repeats, deletes, nulls), it gives what
 * the core's rules give, so a dimension it passes is one the stream would have kept.
 */
class BackfillOracleTest {
  private static final FeedSchema PROMOTED = Seed.CHANGES.with(Column.of("region", Type.STRING));
  private static final String[] REGIONS = {"eu", "EU", "us", null};

  @Test
  void duckDbsRebuildIsTheCoresRules() throws Exception {
    SplittableRandom rng = new SplittableRandom(41);
    List<CompanyChange> changes = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      String company = "c" + rng.nextInt(40);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(10));
      changes.add(rng.nextDouble() < 0.1 ? new CompanyChange(company, null, null, at, true, Arrays.asList(
          (Object) null)) : CompanyChange.set(company, rng.nextDouble() < 0.8 ? "Acme" : null, "gold", at,
          Arrays.asList(REGIONS[rng.nextInt(REGIONS.length)])));
    }
    List<CompanyChange> log = changes.stream().distinct().toList();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:"); Statement st = db.createStatement()) {
      DuckDbRows.create(db, "log", PROMOTED.columns(), log.stream().map(CompanyChange::values).toList());
      DuckDbRows.create(db, "expected", Dimension.version(PROMOTED), Scd2History.rebuild(log).stream()
          .map(CompanyVersion::values).toList());
      st.execute("CREATE TABLE got AS " + BackfillAudit.rebuild("log", CompanyChanges.attributes(PROMOTED)));
      String cols = Dimension.version(PROMOTED).names().stream().collect(Collectors.joining(", "));
      List<String> differ = DuckDbRows.firstColumn(db, "SELECT company_id || ' ' || CAST(valid_from AS VARCHAR) "
          + "FROM ((SELECT " + cols + " FROM got EXCEPT ALL SELECT " + cols + " FROM expected) UNION ALL (SELECT "
          + cols + " FROM expected EXCEPT ALL SELECT " + cols + " FROM got))");
      assertThat(differ).isEmpty();
      assertThat(DuckDbRows.firstColumn(db, "SELECT CAST(count(*) AS VARCHAR) FROM expected").get(0))
          .isNotEqualTo("0");
    }
  }

  @Test
  void theLogsBackfillMatchesNonDeletesOnEveryOtherColumnAndTakesTheGreatestValue() {
    String sql = CompanyPromotion.backfillLog("log", "raw", "region", Seed.CHANGES);
    assertThat(sql).contains("max(`region`) AS v", "NOT coalesce(deleted, false)", "l.company_id <=> r.company_id",
        "l.name <=> r.name", "l.tier <=> r.tier", "l.change_ts <=> r.change_ts", "NOT l.deleted",
        "WHEN MATCHED AND l.`region` IS NULL");
  }
}
