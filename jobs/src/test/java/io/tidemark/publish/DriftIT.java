package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.report.RescuedKeys;
import io.tidemark.testing.Cli;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.Seed;
import io.tidemark.testing.Steps;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Schema drift on a pipeline with branches of its own: an arrival whose lines carry keys no feed declares, and an
 * optional field of the wrong type. The raw archives keep every one of those values in their rescued data (equal to
 * DuckDB's reading of the landed lines), the line flows on to the other streams, the stream-batches table counts the
 * rows that carried rescued data, the publish gate accounts for every key of every line (and refuses a file with a
 * value nowhere kept), and once {@code maintain landing --delete} has removed the landed files the values are still on
 * main.
 */
@Steps
class DriftIT extends PipelineOnItsOwnBranches {
  /** Arrival 2: new keys on events and on a company change, an amount that is no number, a bad required field. */
  private static final String EVENTS = """
      {"event_id":9001,"company_id":"c1","amount":1.5,"event_ts":"2026-01-01T00:20:00Z","region":"eu"}
      {"event_id":9002,"company_id":"c2","amount":"12.5x","event_ts":"2026-01-01T00:21:00Z"}
      {"event_id":9003,"company_id":"c1","amount":2,"event_ts":"2026-01-01T00:22:00Z","region":"us","channel":"web"}
      {"event_id":9004,"company_id":"c2","amount":3,"event_ts":"2026-01-01T00:23:00Z"}
      {"event_id":9005,"company_id":"c2","amount":3,"event_ts":"later","region":"eu"}
      """;
  private static final String COMPANIES = """
      {"company_id":"c9","name":"Nine","tier":"gold","change_ts":"2026-01-01T00:20:00Z","segment":"smb"}
      """;

  private Lakehouse lakehouse;
  private DuckOracle oracle;
  private List<String> rescuedByOracle;

  DriftIT() {
    super("drift");
  }

  @BeforeAll
  void aPublisherAndAnOracle() throws Exception {
    lakehouse = Lakehouse.attach(config, stack.endpoints(), spark);
    Path lines = dir.resolve("drift-events.jsonl");
    Files.writeString(lines, EVENTS);
    oracle = new DuckOracle(List.of(List.of(lines)));
  }

  @Test
  @Order(1)
  void everyValueOfANewKeyIsArchivedAndTheLineFlowsOn() throws Exception {
    lander.land(SeedScenarios.ALL.arrivals().get(0));
    lander.land(new Arrival(2, List.of(LandingFile.of(SeedScenarios.EVENTS, "drift.jsonl", EVENTS),
        LandingFile.of(SeedScenarios.COMPANIES, "drift.jsonl", COMPANIES))));
    succeeds(Cli.run(env, "stream", "all"));

    // the oracle: each valid line's keys the feed does not declare, and an amount that is not a number
    rescuedByOracle = oracle.strings("""
        SELECT CAST(json_extract(j, '$.event_id') AS VARCHAR) || '|' || k || '|' || json_extract_string(j, '$."' || k || '"')
        FROM (SELECT line AS j, unnest(json_keys(line)) AS k FROM parsed WHERE reason IS NULL)
        WHERE k NOT IN ('event_id', 'company_id', 'amount', 'event_ts')
           OR (k = 'amount' AND json_type(j, '$.amount') NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'NULL'))
        ORDER BY 1""");
    assertThat(rescuedByOracle).containsExactly("9001|region|eu", "9002|amount|12.5x", "9003|channel|web",
        "9003|region|us");
    assertThat(rescued(t.rawEvents().sqlAt(ingest))).isEqualTo(rescuedByOracle);
    assertThat(RescuedKeys.of(spark, t.rawEvents().sqlAt(ingest), Seed.EVENTS)).as("what the report lists")
        .extracting(f -> f.key() + "|" + f.rows() + "|" + f.firstArrival() + "|" + (f.drift() ? "drift"
            : f.suggested().sql())).containsExactly("amount|1|2|drift", "channel|1|2|STRING", "region|2|2|STRING");
    assertThat(strings("SELECT concat_ws('|', company_id, rescued_data) FROM " + t.rawCompanyChanges().sqlAt(ingest)
        + " WHERE rescued_data IS NOT NULL")).containsExactly("c9|{\"segment\":\"smb\"}");
    assertThat(strings("SELECT reason FROM " + t.rejected().sqlAt(ingest) + " WHERE source_file LIKE '%drift.jsonl'"))
        .as("a required field that does not convert is still quarantined").containsExactly(
            "event_ts is not a timestamp: later");
    assertThat(strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(CAST(amount AS STRING), 'NULL')) "
        + "FROM " + t.events().sqlAt(ingest) + " WHERE event_id > 9000 ORDER BY event_id")).as("every valid line flows on")
        .containsExactly("9001|1.5", "9002|NULL", "9003|2.0", "9004|3.0");
    assertThat(strings("SELECT stream || '|' || CAST(sum(rows_rescued) AS STRING) FROM " + t.streamBatches().sqlAt(ingest)
        + " WHERE rows_rescued IS NOT NULL GROUP BY stream ORDER BY 1"))
        .as("the rows that carried rescued data, per raw archive")
        .containsExactlyInAnyOrder(Seed.RAW + "|3", Seed.RAW_COMPANIES + "|1");
  }

  @Test
  @Order(2)
  void aValueOfALandedLineKeptNowhereIsRefusedByThePublishGate() {
    URI file = landed("events/");
    String key = file.getPath().substring(1);
    byte[] original = stack.lakehouse().storage().get(file.getHost(), key);
    // the same lines, one with a key the archive never read: every line accounted for, one value not
    String tampered = new String(original, StandardCharsets.UTF_8).replace("\"channel\":\"web\"",
        "\"channel\":\"web\",\"coupon\":\"x1\"");
    stack.lakehouse().storage().put(file.getHost(), key, tampered.getBytes(StandardCharsets.UTF_8),
        "application/x-ndjson");
    Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> new Publisher(lakehouse).publish(false));
    assertThat(refused).isInstanceOf(PublishRefused.class);
    assertThat(refused.getMessage()).startsWith("publish refused by check " + ArrivalChecks.LINES + ": ");
    assertThat(String.join("\n", ((PublishRefused) refused).details()))
        .contains("key coupon: 1 value(s) landed, 0 kept");

    stack.lakehouse().storage().put(file.getHost(), key, original, "application/x-ndjson");
    Publisher.Result published = new Publisher(lakehouse).publish(false);
    assertThat(published.summary()).contains("published");
  }

  @Test
  @Order(3)
  void afterTheLandedFilesAreDeletedTheValuesAreStillOnMain() throws Exception {
    String landing = config.landingBucket();
    assertThat(stack.lakehouse().storage().list(landing, "events/")).isNotEmpty();
    succeeds(Cli.run(env, "maintain", "landing", "--delete"));
    assertThat(stack.lakehouse().storage().list(landing, "events/")).as("the landed files are gone").isEmpty();
    assertThat(stack.lakehouse().storage().list(landing, "companies/")).isEmpty();
    assertThat(rescued(t.rawEvents().sqlAt(main))).as("on main, from the archive alone").isEqualTo(rescuedByOracle);
  }

  /** "event_id|key|value" of every member of the rescued data of an events archive, sorted. */
  private List<String> rescued(String table) {
    List<String> out = new ArrayList<>(strings("SELECT concat_ws('|', CAST(event_id AS STRING), k, v) FROM " + table
        + " LATERAL VIEW explode(from_json(rescued_data, 'map<string,string>')) m AS k, v"));
    out.sort(null);
    return out;
  }

  private URI landed(String dir) {
    return stack.lakehouse().storage().list(config.landingBucket(), dir).stream()
        .filter(o -> o.key().endsWith("drift.jsonl")).map(o -> URI.create("s3://" + config.landingBucket() + "/"
            + o.key())).findFirst().orElseThrow();
  }
}
