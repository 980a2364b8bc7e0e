package io.tidemark.evolve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.PyIceberg;
import io.tidemark.testing.Steps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@code tidemark evolve} on a pipeline with branches of its own: a key the events started to carry is listed, then
 * promoted (killed once before its merge, then run again: promoted once), backfilled from the archive, the next
 * arrival's rows fill it through the same checkpoints, and the next publish takes every table to main, equal to
 * DuckDB's reading of the landed lines; a tag made before the promotion reads the tables as they were. On the evolved
 * tables a restatement writes a late event with its promoted values (its audit fails when the branch holds another
 * value), compaction keeps every value, and PyIceberg reads the promoted columns on main and the old schema on the
 * tag.
 */
@Steps
class EvolveIT extends PipelineOnItsOwnBranches {
  private static final String ARRIVAL_2 = """
      {"event_id":9001,"company_id":"c1","amount":1.5,"event_ts":"2026-01-01T00:20:00Z","region":"eu"}
      {"event_id":9002,"company_id":"c2","amount":2,"event_ts":"2026-01-01T00:21:00Z"}
      {"event_id":9003,"company_id":"c1","amount":2,"event_ts":"2026-01-01T00:22:00Z","region":"us","channel":"web"}
      {"event_id":9003,"company_id":"c1","amount":2,"event_ts":"2026-01-01T00:22:00Z","region":"us"}
      """;
  private static final String ARRIVAL_3 = """
      {"event_id":9004,"company_id":"c2","amount":3,"event_ts":"2026-01-01T00:30:00Z","region":"apac"}
      {"event_id":9005,"company_id":"c1","amount":3,"event_ts":"2026-01-01T00:31:00Z"}
      """;

  EvolveIT() {
    super("evolve");
  }

  @Test
  @Order(1)
  void aNewKeyIsListedWithItsFirstArrivalAndASuggestedType() {
    lander.land(SeedScenarios.ALL.arrivals().get(0));
    lander.land(new Arrival(2, List.of(LandingFile.of(SeedScenarios.EVENTS, "drift.jsonl", ARRIVAL_2))));
    succeeds(Cli.run(env, "stream", "all"));
    succeeds(Cli.run(env, "publish"));
    refs.tag(tag, main, nessie.hash(main));
    Cli.Result list = succeeds(Cli.run(env, "evolve", "list"));
    assertThat(list.out()).contains("events.region: 3 row(s), first in arrival 2", "suggested type STRING")
        .contains("events.channel: 1 row(s)");
  }

  @Test
  @Order(2)
  void aPromotionKilledBeforeItsMergeChangesNothingAndItsRerunPromotesOnce() {
    String staged = nessie.hash(ingest);
    Cli.Result killed = Cli.run(Cli.crashing(env, "evolve:after-raw"), "evolve", "promote", "events", "region");
    assertThat(killed.exitCode()).as("%s", killed).isEqualTo(137);
    assertThat(nessie.hash(ingest)).as("the staging branch is untouched").isEqualTo(staged);
    assertThat(columns(t.rawEvents().sqlAt(ingest))).doesNotContain("region");

    Cli.Result r = succeeds(Cli.run(env, "evolve", "promote", "events", "region"));
    assertThat(r.out()).contains("promoted events.region as STRING: 3 archived row(s) and 2 record(s) backfilled")
        .contains("5 audit check(s) passed");
    assertThat(nessie.entriesSince(ingest, staged)).as("one merge commit").hasSize(1);
    assertThat(refs.exists("evolve-events-region")).as("the branch is gone").isFalse();

    String promoted = nessie.hash(ingest);
    Cli.Result again = succeeds(Cli.run(env, "evolve", "promote", "events", "region"));
    assertThat(again.out())
        .contains("events.region is a column already, of a type that holds what it carried: nothing to do");
    assertThat(nessie.hash(ingest)).isEqualTo(promoted);
  }

  @Test
  @Order(3)
  void thePastRowsHoldTheValueAndTheRescuedDataLosesIt() {
    assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(region, 'NULL'), "
        + "coalesce(rescued_data, 'NULL')) FROM " + t.rawEvents().sqlAt(ingest) + " WHERE event_id > 9000"))
        .containsExactlyInAnyOrder("9001|eu|NULL", "9002|NULL|NULL", "9003|us|{\"channel\":\"web\"}", "9003|us|NULL");
    assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(region, 'NULL')) FROM "
        + t.events().sqlAt(ingest) + " WHERE event_id > 9000")).containsExactlyInAnyOrder("9001|eu", "9002|NULL",
        "9003|us");
    assertThat(spark.sql("SELECT * FROM " + t.events().sqlAt(ingest) + " WHERE event_id <= 9000 AND region IS NOT "
        + "NULL").count()).as("the seed's events carried no region").isZero();
  }

  @Test
  @Order(4)
  void theNextArrivalFillsTheColumnThroughTheSameCheckpointsAndPublishTakesItToMain() throws Exception {
    lander.land(new Arrival(3, List.of(LandingFile.of(SeedScenarios.EVENTS, "drift.jsonl", ARRIVAL_3))));
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(region, 'NULL'), "
        + "coalesce(rescued_data, 'NULL')) FROM " + t.rawEvents().sqlAt(ingest) + " WHERE arrival = 3"))
        .containsExactlyInAnyOrder("9004|apac|NULL", "9005|NULL|NULL");
    succeeds(Cli.run(env, "publish"));

    Path lines = dir.resolve("events.jsonl");
    Files.writeString(lines, ARRIVAL_2 + ARRIVAL_3);
    try (DuckOracle oracle = new DuckOracle(List.of(List.of(lines)))) {
      List<String> expected = oracle.strings("SELECT DISTINCT CAST(json_extract(line, '$.event_id') AS VARCHAR) || '|'"
          + " || json_extract_string(line, '$.region') FROM parsed WHERE reason IS NULL AND json_extract_string(line,"
          + " '$.region') IS NOT NULL ORDER BY 1");
      assertThat(expected).containsExactly("9001|eu", "9003|us", "9004|apac");
      assertThat(sorted(strings("SELECT concat_ws('|', CAST(event_id AS STRING), region) FROM "
          + t.events().sqlAt(main) + " WHERE region IS NOT NULL"))).as("main's events against the landed lines")
          .isEqualTo(expected);
    }
  }

  @Test
  @Order(5)
  void aTagMadeBeforeThePromotionReadsAsBefore() {
    assertThat(columns(t.events().sqlAt(tag))).doesNotContain("region");
    assertThat(columns(t.rawEvents().sqlAt(tag))).doesNotContain("region");
    assertThat(strings("SELECT coalesce(rescued_data, 'NULL') FROM " + t.rawEvents().sqlAt(tag)
        + " WHERE event_id = 9001")).containsExactly("{\"region\":\"eu\"}");
    assertThat(columns(t.events().sqlAt(main))).contains("region");
  }

  @Test
  @Order(6)
  void anIntegerThatOutgrowsItsPromotedColumnIsRescuedThenWidenedInPlace() {
    lander.land(new Arrival(4, List.of(LandingFile.of(SeedScenarios.EVENTS, "qty.jsonl",
        "{\"event_id\":9006,\"company_id\":\"c1\",\"event_ts\":\"2026-01-01T00:40:00Z\",\"qty\":5}\n"))));
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(succeeds(Cli.run(env, "evolve", "promote", "events", "qty")).out())
        .contains("promoted events.qty as INT: 1 archived row(s) and 1 record(s) backfilled");
    lander.land(new Arrival(5, List.of(LandingFile.of(SeedScenarios.EVENTS, "qty.jsonl",
        "{\"event_id\":9007,\"company_id\":\"c1\",\"event_ts\":\"2026-01-01T00:41:00Z\",\"qty\":3000000000}\n"))));
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(strings("SELECT concat_ws('|', coalesce(CAST(qty AS STRING), 'NULL'), rescued_data) FROM "
        + t.rawEvents().sqlAt(ingest) + " WHERE event_id = 9007")).as("beyond an INT: rescued, the line kept")
        .containsExactly("NULL|{\"qty\":3000000000}");
    assertThat(succeeds(Cli.run(env, "evolve", "list")).out()).contains("events.qty: type drift, 1 row(s)")
        .contains("widen to BIGINT");

    Cli.Result widened = succeeds(Cli.run(env, "evolve", "promote", "events", "qty"));
    assertThat(widened.out()).contains("widened events.qty to BIGINT: 1 archived row(s) and 1 record(s) backfilled");
    for (String table : List.of(t.rawEvents().sqlAt(ingest), t.events().sqlAt(ingest))) {
      assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), CAST(qty AS STRING)) FROM " + table
          + " WHERE qty IS NOT NULL")).as(table).containsExactlyInAnyOrder("9006|5", "9007|3000000000");
      assertThat(spark.table(table).schema().apply("qty").dataType().typeName()).isEqualTo("long");
    }
    assertThat(strings("SELECT coalesce(rescued_data, 'NULL') FROM " + t.rawEvents().sqlAt(ingest)
        + " WHERE event_id = 9007")).containsExactly("NULL");
    succeeds(Cli.run(env, "publish"));
  }

  @Test
  @Order(7)
  void lateEventsCarryingThePromotedFieldsAreRestatedWithTheirValuesOnTheDriverAndInSpark() {
    // two days before the watermarks: archived with region and qty, dropped by the dedup and the counts as late;
    // the first restatement plans on the driver, the second in Spark (--driver-rows 0)
    String[][] runs = {{"late", "9008", "sa", "7000000000", "" + Long.MAX_VALUE},
        {"late-spark", "9009", "af", "8", "0"}};
    int arrival = 6;
    for (String[] run : runs) {
      lander.land(new Arrival(arrival++, List.of(LandingFile.of(SeedScenarios.EVENTS, run[0] + ".jsonl",
          "{\"event_id\":" + run[1] + ",\"company_id\":\"c2\",\"amount\":4,\"event_ts\":\"2025-12-30T00:10:00Z\","
              + "\"region\":\"" + run[2] + "\",\"qty\":" + run[3] + "}\n"))));
      succeeds(Cli.run(env, "stream", "all"));
      String expected = run[1] + "|" + run[2] + "|" + run[3];
      assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), region, CAST(qty AS STRING)) FROM "
          + t.rawEvents().sqlAt(ingest) + " WHERE event_id = " + run[1])).containsExactly(expected);
      assertThat(spark.sql("SELECT * FROM " + t.events().sqlAt(ingest) + " WHERE event_id = " + run[1]).count())
          .as("late for the dedup").isZero();

      if (run[0].equals("late-spark")) {
        auditFailsOnAPromotedValueItsRunDidNotWrite(run[0], run[1], run[2], run[4]);
      }
      Cli.Result r = succeeds(Cli.run(env, "restate", "--run-id", run[0], "--ref-prefix", prefix, "--driver-rows",
          run[4]));
      assertThat(r.out()).contains("1 record key(s) corrected")
          .contains("1 corrected key(s) hold their first occurrence and its region, qty");
      assertThat(strings("SELECT concat_ws('|', get_json_object(key, '$.event_id'), get_json_object(new_value, "
          + "'$.region'), get_json_object(new_value, '$.qty')) FROM " + t.restatementPlan().sqlAt(prefix + "restated-"
          + run[0]) + " WHERE kind = 'record' AND run_id = '" + run[0] + "'")).as("the plan carries the values")
          .containsExactly(expected);
      succeeds(Cli.run(env, "publish"));
      assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), region, CAST(qty AS STRING)) FROM "
          + t.events().sqlAt(main) + " WHERE event_id = " + run[1])).as("main's event as it arrived")
          .containsExactly(expected);
    }
    assertThat(succeeds(Cli.run(env, "check")).out()).contains("check: ok");
  }

  /**
   * The run's stages, with a write on its branch that the run did not make (the corrected event's promoted value
   * changed): the audit finds it against DuckDB's first occurrence; the branch is dropped, as the recipe says.
   */
  private void auditFailsOnAPromotedValueItsRunDidNotWrite(String runId, String eventId, String region,
                                                           String driverRows) {
    String[] run = {"--run-id", runId, "--ref-prefix", prefix};
    succeeds(Cli.run(env, concat(new String[] {"restate", "plan", "--driver-rows", driverRows}, run)));
    succeeds(Cli.run(env, concat(new String[] {"restate", "write"}, run)));
    String branch = prefix + "restate-" + runId;
    Map<String, String> onBranch = new HashMap<>(env);
    onBranch.put("TIDEMARK_NESSIE_REF", branch);
    succeeds(Cli.run(onBranch, "sql", "UPDATE " + t.events() + " SET region = 'xx' WHERE event_id = " + eventId));
    String staged = nessie.hash(ingest);

    Cli.Result audit = Cli.run(env, concat(new String[] {"restate", "audit"}, run));
    assertThat(audit.exitCode()).as("%s", audit).isEqualTo(1);
    assertThat(audit.errLines()).as("%s", audit).singleElement().asString()
        .startsWith("tidemark: audit failed: events: DuckDB first occurrence from the raw archive")
        .contains("event " + eventId + " has region = xx, first seen as " + region)
        .endsWith("see docs/troubleshooting.md#a-failed-restatement-audit");
    assertThat(nessie.hash(ingest)).as("the staging branch is untouched").isEqualTo(staged);
    succeeds(Cli.run(env, "sql", "DROP BRANCH " + branch + " IN nessie"));
  }

  private static String[] concat(String[] a, String[] b) {
    return java.util.stream.Stream.concat(Arrays.stream(a), Arrays.stream(b)).toArray(String[]::new);
  }

  @Test
  @Order(8)
  void compactionKeepsEveryValueOfTheEvolvedTables() {
    List<String> raw = rows(t.rawEvents().sqlAt(ingest));
    List<String> events = rows(t.events().sqlAt(ingest));
    succeeds(Cli.run(env, "maintain", "compact"));
    assertThat(rows(t.rawEvents().sqlAt(ingest))).isEqualTo(raw);
    assertThat(rows(t.events().sqlAt(ingest))).isEqualTo(events);
    assertThat(columns(t.events().sqlAt(ingest))).contains("region", "qty");
    succeeds(Cli.run(env, "publish"));
    assertThat(succeeds(Cli.run(env, "check")).out()).contains("check: ok");
  }

  @Test
  @Order(9)
  void pyIcebergReadsThePromotedColumnsOnMainAndTheOldSchemaOnTheTag() {
    PyIceberg py = PyIceberg.install(stack.config().icebergRestUri(), stack.endpoints());
    String events = t.events().toString();
    JsonNode onMain = py.run(main, null, "read", events).ok().get(events);
    List<String> columns = new ArrayList<>();
    onMain.get("columns").forEach(c -> columns.add(c.asText()));
    assertThat(columns).as("PyIceberg on main").containsExactly(spark.table(t.events().sqlAt(main)).columns())
        .contains("region", "qty");
    int id = columns.indexOf("event_id");
    int region = columns.indexOf("region");
    int qty = columns.indexOf("qty");
    List<String> promoted = new ArrayList<>();
    onMain.get("rows").forEach(row -> {
      if (!row.get(region).isNull() || !row.get(qty).isNull()) {
        promoted.add(row.get(id).asInt() + "|" + (row.get(region).isNull() ? "NULL" : row.get(region).asText())
            + "|" + (row.get(qty).isNull() ? "NULL" : row.get(qty).asText()));
      }
    });
    assertThat(sorted(promoted)).as("the values PyIceberg reads on main are Spark's")
        .isEqualTo(sorted(strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(region, 'NULL'), "
            + "coalesce(CAST(qty AS STRING), 'NULL')) FROM " + t.events().sqlAt(main)
            + " WHERE region IS NOT NULL OR qty IS NOT NULL")))
        .contains("9001|eu|NULL", "9007|NULL|3000000000", "9008|sa|7000000000", "9009|af|8");

    String raw = t.rawEvents().toString();
    JsonNode onTag = py.run(tag, null, "read", events, raw).ok();
    for (String table : List.of(events, raw)) {
      List<String> before = new ArrayList<>();
      onTag.get(table).get("columns").forEach(c -> before.add(c.asText()));
      assertThat(before).as("PyIceberg on the tag: %s", table).doesNotContain("region", "qty")
          .containsExactly(spark.table(table.equals(raw) ? t.rawEvents().sqlAt(tag) : t.events().sqlAt(tag))
              .columns());
    }
    assertThat(onTag.get(raw).get("rows").size()).isEqualTo((int) spark.table(t.rawEvents().sqlAt(tag)).count());
  }

  /** Every row of a table as text, sorted. */
  private List<String> rows(String table) {
    return sorted(spark.table(table).collectAsList().stream().map(Object::toString).toList());
  }

  private static List<String> sorted(List<String> in) {
    return in.stream().sorted().toList();
  }
}
