package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.publish.PublishRefused;
import io.tidemark.publish.Publisher;
import io.tidemark.stream.Streams;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The second pipeline's expectations (pipelines/shop.yml: orders keyed on two columns, a decimal price) the whole way,
 * as ExpectationsIT holds the seed's: the violations per expectation in the record equal DuckDB's, running the file's
 * own conditions over the landed lines; the dropped lines are quarantined with their reason and in no table
 * downstream; a row {@code fail} and an arrival {@code fail} (a share of nulls, after the rule was changed to fail)
 * each hold their arrival off main, main's head unchanged, until a later arrival releases it.
 */
class ShopExpectationsIT extends StackTest {
  private static final Path SHOP = Path.of("../pipelines/shop.yml");

  @Test
  void theShopsRulesCountAsDuckDbCountsDropHoldAndRelease() throws Exception {
    StagedPipeline p = new StagedPipeline(stack, "shopexp", tmp.resolve("checkpoints"), SHOP);
    SparkSession s = p.spark();
    FactFeed orders = (FactFeed) p.config().pipeline().feed("orders");

    // arrival 1: 30 good lines (one without a store: 1 of 30 kept > 2%, warned), 2 with no units and one with -1
    // (dropped by qty_positive), one without a price (a null passes)
    StringBuilder lines = new StringBuilder();
    for (int i = 1; i <= 30; i++) {
      lines.append(order("o" + i, i % 3 + 1, i == 30 ? null : i % 4 + 1, 1 + i % 5, "12.50", i));
    }
    lines.append(order("o31", 1, 1, 0, "3.00", 31)).append(order("o32", 2, 1, 0, "3.00", 32))
        .append(order("o33", 1, 2, -1, "3.00", 33)).append(order("o34", 1, 2, 2, null, 34));
    Path first = write("orders-1.jsonl", lines.toString());
    p.land(new Arrival(1, List.of(new LandingFile("orders", "o.jsonl", Files.readAllBytes(first)))));
    p.streamAll();
    Publisher.Result published = p.publish();
    assertThat(published.mergeHash()).as(published.summary()).isNotNull();
    assertThat(published.checks()).filteredOn(c -> c.name().equals("expectations")).singleElement()
        .satisfies(c -> assertThat(c.detail()).contains("warned: orders arrival 1: store_given (warn, v1) 1 of 31"));

    Map<String, Long> expected = new HashMap<>();
    List<String> dropped = new ArrayList<>();
    try (Connection duck = DriverManager.getConnection("jdbc:duckdb:"); Statement st = duck.createStatement()) {
      st.execute("CREATE TABLE o AS SELECT * FROM read_json_auto('" + first + "')");
      for (Expectation e : orders.expectations()) {
        if (e.isRow()) {
          expected.put(e.name(), count(st, "SELECT count(*) FROM o WHERE (" + e.condition() + ") = false"));
          if (e.action() == Expectation.Action.DROP) {
            try (ResultSet rs = st.executeQuery("SELECT concat(order_id, '/', line_no) FROM o WHERE (" + e.condition()
                + ") = false")) {
              while (rs.next()) {
                dropped.add(rs.getString(1));
              }
            }
          }
        }
      }
      String kept = "concat(order_id, '/', line_no) NOT IN ('" + String.join("','", dropped) + "')";
      expected.put("store_given", count(st, "SELECT count(*) FROM o WHERE " + kept + " AND store_no IS NULL"));
      expected.put("not_empty", 0L);
      assertThat(expected).containsEntry("qty_positive", 3L).containsEntry("price_not_negative", 0L);
      assertThat(recorded(s, p, 1)).as("the record's violations per expectation, against DuckDB").isEqualTo(expected);

      // the dropped lines: in the quarantine with their reason, in neither the archive nor the deduplicated table
      assertThat(s.sql("SELECT reason FROM " + p.config().pipeline().shared().rejected().sqlAt(p.staging())
          + " WHERE dataset = 'orders'").as(Encoders.STRING()).collectAsList())
          .containsOnly("expectation qty_positive (drop)").hasSize(3);
      List<String> keptKeys = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT concat(order_id, '/', line_no) FROM o WHERE " + kept
          + " ORDER BY 1")) {
        while (rs.next()) {
          keptKeys.add(rs.getString(1));
        }
      }
      for (var table : List.of(orders.raw().table(), orders.dedupTable())) {
        assertThat(keys(s, table.sqlAt(p.staging()))).as("%s", table).isEqualTo(keptKeys);
      }
    }

    // arrival 2: a negative price (fail): held off main, the line in no table downstream
    String before = head(p);
    p.land(new Arrival(2, List.of(LandingFile.of("orders", "o.jsonl",
        order("o40", 1, 1, 2, "4.00", 40) + order("o41", 2, 1, 1, "-5.00", 41)))));
    p.streamAll();
    assertThatThrownBy(p::publish).isInstanceOf(PublishRefused.class).satisfies(e -> assertThat(e.getMessage())
        .startsWith("publish refused by check expectations (orders arrival 2: price_not_negative (fail, v1) 1 of 2 "
            + "row(s), e.g. order_id=o41, line_no=2")
        .doesNotContain("\n"));
    assertThat(head(p)).as("main unchanged").isEqualTo(before);
    assertThat(keys(s, orders.dedupTable().sqlAt(p.staging()))).doesNotContain("o41/2");
    // tidemark check on the staging branch: the counts per arrival and version, and the publish check's refusal
    Cli.Result check = Cli.run(p.env(), "check", "--branch", p.staging());
    assertThat(check.exitCode()).as("%s", check).isEqualTo(1);
    assertThat(check.out()).as("%s", check).contains("expectations per arrival, as recorded in ")
        .containsPattern("orders\\W+2\\W+price_not_negative\\W+1\\W+condition\\W+fail\\W+price >= 0\\W+2\\W+1"
            + "\\W");
    assertThat(check.err()).as("%s", check).contains("price_not_negative (fail, v1) 1 of 2 row(s)");

    // arrival 3: the correction of the same key: both arrivals published, the corrected price on main
    p.land(new Arrival(3, List.of(LandingFile.of("orders", "o.jsonl", order("o41", 2, 1, 1, "5.00", 41)))));
    p.streamAll();
    published = p.publish();
    assertThat(published.mergeHash()).as(published.summary()).isNotNull();
    assertThat(s.sql("SELECT CAST(price AS STRING) FROM " + orders.dedupTable().sqlAt(p.published())
        + " WHERE order_id = 'o41'").as(Encoders.STRING()).collectAsList()).containsExactly("5.00");

    // the share of nulls changed to fail: from the next arrival on, one order of five without a store holds it
    Path changed = write("shop-fail.yml", Files.readString(SHOP).replace("nulls: {column: store_no, at_most: 2%}",
        "nulls: {column: store_no, at_most: 2%}\n        action: fail"));
    TidemarkConfig v2 = p.config().with(Map.of(Setting.PIPELINE, changed.toAbsolutePath().toString()));
    Bootstrap.run(s, p.lakehouse().storage(), v2);
    StringBuilder fourth = new StringBuilder();
    for (int i = 50; i < 55; i++) {
      fourth.append(order("o" + i, 1, i == 54 ? null : 2, 1, "1.00", i));
    }
    p.land(new Arrival(4, List.of(LandingFile.of("orders", "o.jsonl", fourth.toString()))));
    Streams.all(s, v2);
    Publisher v2Publisher = new Publisher(Lakehouse.attach(v2, stack.endpoints(), s));
    before = head(p);
    assertThatThrownBy(() -> v2Publisher.publish(false)).isInstanceOf(PublishRefused.class)
        .satisfies(e -> assertThat(e.getMessage()).contains("orders arrival 4: store_given (fail, v2) 1 of 5")
            .doesNotContain("\n"));
    assertThat(head(p)).as("main unchanged").isEqualTo(before);

    // arrival 5 meets the bound: it releases arrival 4, whose rows (the one without a store too) reach main
    StringBuilder fifth = new StringBuilder();
    for (int i = 60; i < 70; i++) {
      fifth.append(order("o" + i, 1, 3, 1, "1.00", i));
    }
    p.land(new Arrival(5, List.of(LandingFile.of("orders", "o.jsonl", fifth.toString()))));
    Streams.all(s, v2);
    published = v2Publisher.publish(false);
    assertThat(published.mergeHash()).as(published.summary()).isNotNull();
    assertThat(keys(s, orders.dedupTable().sqlAt(p.published()))).contains("o54/1", "o69/1");
    assertThat(s.sql("SELECT arrival, version, sum(violations) FROM " + v2.pipeline().shared().expectations()
        .sqlAt(p.staging()) + " WHERE expectation = 'store_given' GROUP BY ALL ORDER BY ALL").collectAsList())
        .extracting(Object::toString).containsExactly("[1,1,1]", "[2,1,0]", "[3,1,0]", "[4,2,1]", "[5,2,0]");
  }

  private static String head(StagedPipeline p) {
    try (NessieRefs refs = new NessieRefs(p.lakehouse().endpoints())) {
      return refs.branch(p.published()).getHash();
    }
  }

  private static List<String> keys(SparkSession s, String table) {
    return s.sql("SELECT concat(order_id, '/', CAST(line_no AS STRING)) FROM " + table + " ORDER BY 1")
        .as(Encoders.STRING()).collectAsList();
  }

  private static Map<String, Long> recorded(SparkSession s, StagedPipeline p, int arrival) {
    Map<String, Long> out = new HashMap<>();
    for (Row r : s.sql("SELECT expectation, sum(coalesce(violations, 0)) FROM "
        + p.config().pipeline().shared().expectations().sqlAt(p.staging()) + " WHERE feed = 'orders' AND arrival = "
        + arrival + " GROUP BY expectation").collectAsList()) {
      out.put(r.getString(0), r.getLong(1));
    }
    return out;
  }

  private static long count(Statement st, String sql) throws Exception {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Path write(String name, String content) throws Exception {
    Path f = tmp.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  private static String order(String id, int line, Integer store, int qty, String price, int minute) {
    return "{\"order_id\":\"" + id + "\",\"line_no\":" + line + ",\"store_country\":\"c1\","
        + (store == null ? "" : "\"store_no\":" + store + ",") + "\"customer_id\":" + (minute % 7)
        + ",\"sku\":\"k" + minute + "\",\"qty\":" + qty + (price == null ? "" : ",\"price\":" + price)
        + ",\"business_day\":\"2026-01-01\",\"ordered_at\":\"2026-01-01T" + String.format("%02d:%02d:00Z",
        minute / 60, minute % 60) + "\"}\n";
  }
}
