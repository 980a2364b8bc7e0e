package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Arrival;
import io.tidemark.pipeline.PipelineException;
import io.tidemark.land.LandingFile;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.pipeline.Expectation;
import io.tidemark.pipeline.Feed;
import io.tidemark.publish.PublishRefused;
import io.tidemark.publish.Publisher;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The seed's expectations over a generated arrival with known violations of each kind, the whole way: the counts per
 * expectation in the record equal DuckDB's, running the file's own conditions over the landed lines; the dropped lines
 * are in the quarantine with their expectation as the reason and in none of the archive, the dedup, the counts; a
 * warn keeps its rows and lets the arrival pass; a fail expectation holds its arrival off main (main's head, so every
 * table of it, unchanged) until a correction lands, and then it is published.
 */
class ExpectationsIT extends StackTest {
  @Test
  void anArrivalWithKnownViolationsIsCountedAsDuckDbCountsItAndAFailHoldsItUntilACorrection() throws Exception {
    StagedPipeline p = new StagedPipeline(stack, "expect", tmp.resolve("checkpoints"));
    SparkSession s = p.spark();
    String ingest = p.staging();

    // arrival 1: 40 good events, 3 negative amounts and one a year ahead (dropped), 3 without a company (a warned
    // null share: 3 of 44 kept > 5%), one without an amount (null passes), one line that is not JSON
    StringBuilder events = new StringBuilder();
    for (int i = 1; i <= 40; i++) {
      events.append(event(i, "c" + (1 + i % 4), i * 1.5, String.format("2026-01-01T00:%02d:00Z", i)));
    }
    for (int i = 41; i <= 43; i++) {
      events.append(event(i, "c1", -i, "2026-01-01T00:10:30Z"));
    }
    events.append(event(44, "c2", 3.0, "2099-01-01T00:00:00Z"));
    for (int i = 45; i <= 47; i++) {
      events.append("{\"event_id\":" + i + ",\"amount\":1.0,\"event_ts\":\"2026-01-01T00:20:00Z\"}\n");
    }
    events.append("{\"event_id\":48,\"company_id\":\"c3\",\"event_ts\":\"2026-01-01T00:21:00Z\"}\n");
    events.append("not json\n");
    String companies = company("c1", "gold", "00:00:00") + company("c2", "silver", "00:00:00")
        + company("c3", "bronze", "00:00:00") + company("c4", "platinum", "00:00:00");
    Path events1 = write("events-1.jsonl", events.toString());
    Path companies1 = write("companies-1.jsonl", companies);
    p.land(new Arrival(1, List.of(new LandingFile("events", "e.jsonl", Files.readAllBytes(events1)),
        new LandingFile("companies", "c.jsonl", Files.readAllBytes(companies1)))));
    Instant landed = Instant.now();
    p.streamAll();
    Publisher.Result first = p.publish();
    assertThat(first.mergeHash()).as(first.summary()).isNotNull();
    assertThat(first.checks()).filteredOn(c -> c.name().equals("expectations")).singleElement()
        .satisfies(c -> assertThat(c.detail()).contains("warned: events arrival 1: company_known (warn, v1) 3 of 44"));

    Feed eventsFeed = p.config().pipeline().feed("events");
    Map<String, Long> recorded = recorded(s, p, "events", 1);
    try (DuckOracle oracle = new DuckOracle(List.of(List.of(events1)))) {
      Map<String, Long> expected = new HashMap<>();
      long valid = one(oracle, "SELECT count(*) FROM ev");
      List<String> droppedIds = new ArrayList<>();
      for (Expectation e : eventsFeed.expectations()) {
        if (e.isRow()) {
          String condition = duck(e.condition(), landed);
          expected.put(e.name(), one(oracle, "SELECT count(*) FROM ev WHERE (" + condition + ") = false"));
          if (e.action() == Expectation.Action.DROP) {
            droppedIds.addAll(oracle.strings("SELECT CAST(event_id AS VARCHAR) FROM ev WHERE (" + condition
                + ") = false"));
          }
        }
      }
      assertThat(expected).containsEntry("amount_not_negative", 3L).containsEntry("event_time_not_future", 1L);
      expected.put("few_dropped", (long) droppedIds.size());
      String kept = "event_id NOT IN (" + String.join(",", droppedIds) + ")";
      expected.put("company_known", one(oracle, "SELECT count(*) FROM ev WHERE " + kept + " AND company_id IS NULL"));
      assertThat(recorded).as("the record's violations per expectation, against DuckDB").isEqualTo(expected);
      assertThat(rows(s, p, "events", 1, "few_dropped")).as("valid lines judged").isEqualTo(valid);
      assertThat(rows(s, p, "events", 1, "company_known")).as("rows kept").isEqualTo(valid - droppedIds.size());

      // the dropped lines: quarantined with their reason, in no table downstream
      List<String> reasons = s.sql("SELECT reason FROM " + p.config().pipeline().shared().rejected().sqlAt(ingest)
          + " WHERE reason LIKE 'expectation %' ORDER BY reason").as(Encoders.STRING()).collectAsList();
      assertThat(reasons).containsExactly("expectation amount_not_negative (drop)",
          "expectation amount_not_negative (drop)", "expectation amount_not_negative (drop)",
          "expectation event_time_not_future (drop)");
      for (String table : List.of("raw.events", "facts.events")) {
        assertThat(s.sql("SELECT event_id FROM " + scoped(p, table) + " WHERE " + kept.replace("NOT IN", "IN"))
            .count()).as(table).isZero();
      }
      long archived = s.table(scoped(p, "raw.events")).count();
      long rejected = s.sql("SELECT * FROM " + p.config().pipeline().shared().rejected().sqlAt(ingest)
          + " WHERE dataset = 'events'").count();
      assertThat(archived + rejected).as("raw + rejected = lines landed").isEqualTo(oracle.lines());
      // the counts: DuckDB's windows over the kept events alone (the event a year ahead moved no watermark)
      oracle.strings("DELETE FROM ev WHERE NOT (" + kept + ") RETURNING CAST(event_id AS VARCHAR)");
      List<String> counts = s.sql("SELECT concat_ws('|', coalesce(company_id, 'NULL'), date_format(w_start, "
          + "'yyyy-MM-dd HH:mm:ss'), CAST(n AS STRING)) FROM " + scoped(p, "facts.event_counts") + " ORDER BY 1")
          .as(Encoders.STRING()).collectAsList();
      assertThat(counts).isEqualTo(oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5)));
    }

    // arrival 2: a tier outside the set (fail): held off main, main's head unchanged, the change in no dimension
    String before;
    try (NessieRefs refs = new NessieRefs(p.lakehouse().endpoints())) {
      before = refs.branch(p.published()).getHash();
    }
    Path companies2 = write("companies-2.jsonl", company("c5", "diamond", "05:00:00")
        + company("c1", "silver", "05:00:00"));
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      Expectation tier = p.config().pipeline().feed("companies").expectations().get(0);
      try (ResultSet rs = st.executeQuery("SELECT count(*) FROM read_json_auto('" + companies2 + "') WHERE ("
          + tier.condition() + ") = false")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(1);
      }
    }
    // each arrival brings events too, as arrivals do: the counts' published batches need not name an arrival
    p.land(new Arrival(2, List.of(new LandingFile("companies", "c.jsonl", Files.readAllBytes(companies2)),
        new LandingFile("events", "e.jsonl", event(49, "c1", 1.0, "2026-01-01T00:40:00Z")
            .getBytes(StandardCharsets.UTF_8)))));
    p.streamAll();
    assertThat(recorded(s, p, "companies", 2)).containsEntry("tier_in_set", 1L);
    assertThatThrownBy(p::publish).isInstanceOf(PublishRefused.class).satisfies(e -> assertThat(e.getMessage())
        .as(String.join("\n", ((PublishRefused) e).details())).startsWith("publish refused by check expectations (companies arrival 2: tier_in_set (fail, v1) 1 of 2 "
            + "row(s), e.g. company_id=c5, change_ts=2026-01-01 05:00:00")
        .doesNotContain("\n"));
    try (NessieRefs refs = new NessieRefs(p.lakehouse().endpoints())) {
      assertThat(refs.branch(p.published()).getHash()).as("main unchanged").isEqualTo(before);
    }
    assertThat(s.sql("SELECT * FROM " + scoped(p, "dims.companies") + " WHERE company_id = 'c5'").count())
        .as("a held change is applied nowhere").isZero();

    // arrival 3: the correction, c5 with a tier of the set: the arrival is released, both published
    p.land(new Arrival(3, List.of(new LandingFile("companies", "c.jsonl",
        company("c5", "gold", "05:00:00").getBytes(StandardCharsets.UTF_8)), new LandingFile("events", "e.jsonl",
        event(50, "c1", 1.0, "2026-01-01T00:50:00Z").getBytes(StandardCharsets.UTF_8)))));
    p.streamAll();
    Publisher.Result released = p.publish();
    assertThat(released.mergeHash()).as(released.summary()).isNotNull();
    assertThat(s.sql("SELECT tier FROM " + p.config().pipeline().dimensions().get(0).table().sqlAt(p.published())
        + " WHERE company_id = 'c5'").as(Encoders.STRING()).collectAsList()).containsExactly("gold");

    // a changed rule: refused by the streams until bootstrap recorded it, then it judges from the next arrival on
    Path changed = write("changed.yml", Files.readString(Path.of("../pipelines/seed.yml"))
        .replace("condition: amount >= 0", "condition: amount > 1"));
    TidemarkConfig v2 = p.config().with(Map.of(Setting.PIPELINE, changed.toString()));
    assertThatThrownBy(() -> Streams.all(s, v2)).isInstanceOf(PipelineException.class)
        .hasMessageContaining("run tidemark bootstrap").hasMessageContaining("v1 (from arrival 1)");
    Bootstrap.run(s, p.lakehouse().storage(), v2);
    // one dropped of twelve: within few_dropped's 10%, which would hold the arrival otherwise
    StringBuilder fourth4 = new StringBuilder(event(51, "c1", 1.0, "2026-01-01T01:00:00Z"));
    for (int i = 52; i <= 62; i++) {
      fourth4.append(event(i, "c2", 5.0, "2026-01-01T01:01:00Z"));
    }
    p.land(new Arrival(4, List.of(new LandingFile("events", "e.jsonl",
        fourth4.toString().getBytes(StandardCharsets.UTF_8)))));
    Streams.all(s, v2);
    assertThat(s.sql("SELECT arrival, version, sum(violations) FROM " + v2.pipeline().shared().expectations()
        .sqlAt(ingest) + " WHERE expectation = 'amount_not_negative' GROUP BY ALL ORDER BY ALL").collectAsList())
        .extracting(Object::toString).containsExactly("[1,1,3]", "[2,1,0]", "[3,1,0]", "[4,2,1]");
    Publisher.Result fourth = new Publisher(io.tidemark.lakehouse.Lakehouse.attach(v2, stack.endpoints(), s))
        .publish(false);
    assertThat(fourth.mergeHash()).as(fourth.summary()).isNotNull();
    Path page = io.tidemark.report.PipelineReport.write(s, v2, tmp.resolve("report.html"));
    assertThat(Files.readString(page)).contains("<h2>Expectations</h2>", "<td>amount_not_negative</td><td>v1</td>"
        + "<td>amount &gt;= 0</td><td>drop</td><td>1-3</td>", "<td>amount_not_negative</td><td>v2</td><td>amount &gt; 1"
        + "</td><td>drop</td><td>4</td>", "event_id=51", "tier_in_set");
  }

  /** The violations the record holds per expectation of an arrival of a feed, summed over its batches. */
  private static Map<String, Long> recorded(SparkSession s, StagedPipeline p, String feed, int arrival) {
    Map<String, Long> out = new HashMap<>();
    for (Row r : s.sql("SELECT expectation, sum(coalesce(violations, 0)) FROM "
        + p.config().pipeline().shared().expectations().sqlAt(p.staging()) + " WHERE feed = '" + feed
        + "' AND arrival = " + arrival + " GROUP BY expectation").collectAsList()) {
      out.put(r.getString(0), r.getLong(1));
    }
    return out;
  }

  private static long rows(SparkSession s, StagedPipeline p, String feed, int arrival, String expectation) {
    return s.sql("SELECT sum(rows) FROM " + p.config().pipeline().shared().expectations().sqlAt(p.staging())
        + " WHERE feed = '" + feed + "' AND arrival = " + arrival + " AND expectation = '" + expectation + "'")
        .first().getLong(0);
  }

  /** A table of the pipeline at the staging branch, by its seed name. */
  private static String scoped(StagedPipeline p, String seedName) {
    return p.config().pipeline().tables().stream().filter(t -> t.toString().endsWith(seedName.replace('.', '_'))
        || t.toString().equals(seedName)).findFirst().orElseThrow().sqlAt(p.staging());
  }

  /** A Spark condition as DuckDB runs it: the time now is when the arrival landed. */
  private static String duck(String condition, Instant landed) {
    return condition.replace("current_timestamp()", "TIMESTAMP '" + landed.toString().replace("T", " ")
        .replace("Z", "") + "'");
  }

  private static long one(DuckOracle oracle, String sql) throws Exception {
    return Long.parseLong(oracle.strings("SELECT CAST((" + sql + ") AS VARCHAR)").get(0));
  }

  private Path write(String name, String content) throws Exception {
    Path f = tmp.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  private static String event(int id, String company, double amount, String ts) {
    return "{\"event_id\":" + id + ",\"company_id\":\"" + company + "\",\"amount\":" + amount + ",\"event_ts\":\""
        + ts + "\"}\n";
  }

  private static String company(String id, String tier, String time) {
    return "{\"company_id\":\"" + id + "\",\"name\":\"N" + id + "\",\"tier\":\"" + tier
        + "\",\"change_ts\":\"2026-01-01T" + time + "Z\"}\n";
  }
}
