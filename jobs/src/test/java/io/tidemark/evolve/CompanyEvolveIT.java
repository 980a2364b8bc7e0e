package io.tidemark.evolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.Scd2Oracle;
import io.tidemark.testing.Steps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@code tidemark evolve promote companies KEY}: a key the company changes started to carry becomes a tracked
 * attribute of the SCD2 dimension. Killed once before its merge, then run again: promoted once; the dimension's past
 * gains the versions where only the key changed, equal to DuckDB's rebuild from the landed lines; the next arrival is
 * tracked through the same checkpoint; publish and {@code tidemark check} pass; a tag made before reads as before; a
 * late change is restated with its value of the promoted attribute.
 */
@Steps
class CompanyEvolveIT extends PipelineOnItsOwnBranches {
  // k1: only the region changes at 01:00, then a repeat; k2: the region comes with a tier change
  private static final String ARRIVAL_2 = """
      {"company_id":"k1","name":"Kite","tier":"gold","change_ts":"2026-01-01T00:10:00Z","region":"eu"}
      {"company_id":"k1","name":"Kite","tier":"gold","change_ts":"2026-01-01T01:00:00Z","region":"us"}
      {"company_id":"k1","name":"Kite","tier":"gold","change_ts":"2026-01-01T02:00:00Z","region":"us"}
      {"company_id":"k2","name":"Lark","tier":"silver","change_ts":"2026-01-01T00:10:00Z"}
      {"company_id":"k2","name":"Lark","tier":"gold","change_ts":"2026-01-01T01:00:00Z","region":"eu"}
      """;
  // after the promotion: k1's region alone changes again, k2 is deleted, k3 is new
  private static final String ARRIVAL_3 = """
      {"company_id":"k1","name":"Kite","tier":"gold","change_ts":"2026-01-01T03:00:00Z","region":"apac"}
      {"company_id":"k2","change_ts":"2026-01-01T03:00:00Z","deleted":true,"region":"eu"}
      {"company_id":"k3","name":"Moss","tier":"bronze","change_ts":"2026-01-01T03:00:00Z","region":"eu"}
      """;
  // a day before the scd2 watermark: the stream leaves it to the restatement, which writes it with its region
  private static final String LATE = "{\"company_id\":\"k1\",\"name\":\"Kite\",\"tier\":\"gold\","
      + "\"change_ts\":\"2025-12-30T00:00:00Z\",\"region\":\"sa\"}\n";

  CompanyEvolveIT() {
    super("evolvecos");
  }

  @Test
  @Order(1)
  void beforeThePromotionTheRegionIsKeptButNotTracked() {
    lander.land(SeedScenarios.ALL.arrivals().get(0));
    lander.land(new Arrival(2, List.of(LandingFile.of(SeedScenarios.COMPANIES, "drift.jsonl", ARRIVAL_2))));
    succeeds(Cli.run(env, "stream", "all"));
    succeeds(Cli.run(env, "publish"));
    refs.tag(tag, main, nessie.hash(main));
    assertThat(succeeds(Cli.run(env, "evolve", "list")).out())
        .contains("companies.region: 4 row(s), first in arrival 2", "suggested type STRING");
    assertThat(strings("SELECT concat_ws('|', company_id, date_format(valid_from, 'HH:mm')) FROM "
        + t.companies().sqlAt(ingest) + " WHERE company_id = 'k1'")).as("one version: the region is not tracked")
        .containsExactly("k1|00:10");
  }

  @Test
  @Order(2)
  void aPromotionKilledBeforeItsMergeChangesNothingAndItsRerunPromotesOnce() {
    String staged = nessie.hash(ingest);
    Cli.Result killed = Cli.run(Cli.crashing(env, "evolve:after-log"), "evolve", "promote", "companies", "region");
    assertThat(killed.exitCode()).as("%s", killed).isEqualTo(137);
    assertThat(nessie.hash(ingest)).as("the staging branch is untouched").isEqualTo(staged);
    for (String table : List.of(t.rawCompanyChanges().sqlAt(ingest), t.companyChanges().sqlAt(ingest),
        t.companies().sqlAt(ingest))) {
      assertThat(columns(table)).as(table).doesNotContain("region");
    }

    Cli.Result r = succeeds(Cli.run(env, "evolve", "promote", "companies", "region"));
    assertThat(r.out()).contains("promoted companies.region as STRING: 4 archived row(s) and 4 logged change(s) "
        + "backfilled, the dimension rebuilt (5 -> 6 version(s), 3 written)").contains("7 audit check(s) passed");
    assertThat(nessie.entriesSince(ingest, staged)).as("one merge commit").hasSize(1);
    assertThat(refs.exists("evolve-companies-region")).as("the branch is gone").isFalse();

    String promoted = nessie.hash(ingest);
    assertThat(succeeds(Cli.run(env, "evolve", "promote", "companies", "region")).out())
        .contains("companies.region is a column already, of a type that holds what it carried: nothing to do");
    assertThat(nessie.hash(ingest)).isEqualTo(promoted);
  }

  @Test
  @Order(3)
  void thePastGainsTheVersionsWhereOnlyTheRegionChangedEqualToDuckDbsRebuildOfTheLines() throws Exception {
    assertThat(history(t.companies().sqlAt(ingest))).as("the dimension against the landed lines")
        .isEqualTo(oracle(ARRIVAL_2));
    assertThat(strings("SELECT concat_ws('|', company_id, coalesce(region, 'NULL'), coalesce(rescued_data, 'NULL'))"
        + " FROM " + t.rawCompanyChanges().sqlAt(ingest) + " WHERE company_id = 'k1'"))
        .containsExactlyInAnyOrder("k1|eu|NULL", "k1|us|NULL", "k1|us|NULL");
    assertThat(succeeds(Cli.run(env, "check", "--branch", ingest)).out()).contains("check: ok");
  }

  @Test
  @Order(4)
  void theNextArrivalIsTrackedThroughTheSameCheckpointAndPublishTakesItToMain() throws Exception {
    lander.land(new Arrival(3, List.of(LandingFile.of(SeedScenarios.COMPANIES, "drift.jsonl", ARRIVAL_3))));
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(history(t.companies().sqlAt(ingest))).isEqualTo(oracle(ARRIVAL_2 + ARRIVAL_3));
    assertThat(strings("SELECT concat_ws('|', company_id, coalesce(region, 'NULL')) FROM "
        + t.companyChanges().sqlAt(ingest) + " WHERE change_ts = TIMESTAMP '2026-01-01 03:00:00'"))
        .as("a delete carries no attributes").containsExactlyInAnyOrder("k1|apac", "k2|NULL", "k3|eu");
    succeeds(Cli.run(env, "publish"));
    assertThat(history(t.companies().sqlAt(main))).isEqualTo(oracle(ARRIVAL_2 + ARRIVAL_3));
    assertThat(succeeds(Cli.run(env, "check")).out()).as("main").contains("check: ok");
  }

  @Test
  @Order(5)
  void aTagMadeBeforeThePromotionReadsAsBefore() {
    for (String table : List.of(t.rawCompanyChanges().sqlAt(tag), t.companyChanges().sqlAt(tag),
        t.companies().sqlAt(tag))) {
      assertThat(columns(table)).as(table).doesNotContain("region");
    }
    assertThat(strings("SELECT rescued_data FROM " + t.rawCompanyChanges().sqlAt(tag) + " WHERE company_id = 'k2' "
        + "AND tier = 'gold'")).containsExactly("{\"region\":\"eu\"}");
  }

  @Test
  @Order(6)
  void aLateCompanyChangeIsRestatedWithItsValueOfThePromotedAttribute() throws Exception {
    lander.land(new Arrival(4, List.of(LandingFile.of(SeedScenarios.COMPANIES, "late.jsonl", LATE))));
    succeeds(Cli.run(env, "stream", "all"));
    succeeds(Cli.run(env, "publish"));
    assertThat(history(t.companies().sqlAt(main))).as("late for the stream")
        .isEqualTo(oracle(ARRIVAL_2 + ARRIVAL_3));

    Cli.Result r = succeeds(Cli.run(env, "restate", "--run-id", "late-region", "--ref-prefix", prefix));
    assertThat(r.out()).contains("1 late dimension change(s) applied", "PASS companies: SCD2 invariants");
    assertThat(strings("SELECT get_json_object(new_value, '$.region') FROM "
        + t.restatementPlan().sqlAt(prefix + "restated-late-region") + " WHERE kind = 'change'"))
        .as("the plan carries the value").containsExactly("sa");
    succeeds(Cli.run(env, "publish"));
    assertThat(history(t.companies().sqlAt(main))).as("main's dimension against every landed line")
        .isEqualTo(oracle(ARRIVAL_2 + ARRIVAL_3 + LATE))
        .contains("k1|Kite|gold|sa|2025-12-30 00:00:00|2026-01-01 00:10:00|false");
    assertThat(succeeds(Cli.run(env, "check")).out()).contains("check: ok");
  }

  /** The k-companies' versions, "company|name|tier|region|valid_from|valid_to|is_current", sorted. */
  private List<String> history(String table) {
    return strings("SELECT concat_ws('|', company_id, coalesce(name, 'NULL'), coalesce(tier, 'NULL'), "
        + "coalesce(region, 'NULL'), date_format(valid_from, 'yyyy-MM-dd HH:mm:ss'), "
        + "coalesce(date_format(valid_to, 'yyyy-MM-dd HH:mm:ss'), 'NULL'), CAST(is_current AS STRING)) AS r FROM "
        + table + " WHERE company_id LIKE 'k%' ORDER BY r");
  }

  private List<String> oracle(String lines) throws Exception {
    Path file = dir.resolve("companies-" + lines.length() + ".jsonl");
    Files.writeString(file, lines);
    try (Scd2Oracle oracle = new Scd2Oracle(List.of(file))) {
      return oracle.history(List.of("region"));
    }
  }
}
