package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Type;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LandingFile;
import io.tidemark.land.LocalLanding;
import io.tidemark.testing.Cli;
import io.tidemark.testing.OracleRows;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.PipelineOracle;
import io.tidemark.testing.Steps;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A pipeline unlike the seed in every way the file can vary (pipelines/shop.yml: two fact feeds, one keyed on two
 * columns; decimals and dates; windows of an hour, a day and seven minutes with sums, minima and maxima; a feed with two
 * aggregates; two dimensions, one keyed on two columns, with a string and a boolean delete marker; tables named
 * otherwise), run end to end by the command line on branches of its own: generated arrivals (repeats, late and
 * out-of-order records, bad lines, dimension changes) landed, streamed and published one by one; an arrival of records
 * and changes later than every watermark; fields promoted into a fact feed and a dimension; a restatement; the publish
 * and check. Every table on main then equals what DuckDB computes from the landed lines alone
 * ({@link PipelineOracle}): floating sums within a relative 1e-9, decimals exactly.
 */
@Steps
class ShopPipelineIT extends PipelineOnItsOwnBranches {
  private static final Instant START = GeneratorSpec.DEFAULT_START;
  private static final GeneratorSpec SPEC = new GeneratorSpec(7, 240, 4, 0.05, 0.08, 1, 0.03, 4, 60, 12, START, 30);

  private Pipeline p;
  private Path landed;

  ShopPipelineIT() {
    super("shop");
  }

  @Override
  protected Path pipelineFile() {
    return Path.of("../pipelines/shop.yml");
  }

  private void arrive(Arrival a) {
    lander.land(a);
    LocalLanding.write(landed, "", List.of(a));
    succeeds(Cli.run(env, "stream", "all"));
    succeeds(Cli.run(env, "publish"));
  }

  @Test
  @Order(1)
  void generatedArrivalsStreamAndPublishOneByOne() {
    p = config.pipeline();
    landed = dir.resolve("landed");
    assertThat(p.name()).isEqualTo("shop");
    for (Arrival a : new GeneratedScenario(SPEC, p).arrivals()) {
      arrive(a);
    }
    for (TableName t : p.tables()) {
      assertThat(spark.table(t.sqlAt(main)).columns()).as("%s on main", t).isNotEmpty();
    }
    Cli.Result log = succeeds(Cli.run(env, "sql", "--format", "json", "SHOW LOG " + main + " IN nessie"));
    assertThat(log.out()).as("a publish names each feed's arrival")
        .contains("publish orders arrival 4, clicks arrival 4, customers arrival 4, stores arrival 4 from " + ingest);
  }

  @Test
  @Order(2)
  void recordsAndChangesLaterThanEveryWatermarkAreKeptAndAppliedByTheRestatement() {
    // the newest event times so far are within the 4 arrivals of 30 minutes, and a far-future jump 45 minutes later
    String lateOrders = order("o900", 1, "c1", 1, 7, "12.50", START.plusSeconds(600))
        + order("o901", 2, "c2", 2, 3, "99.99", START.plusSeconds(900))
        // a repeat of an early key long after the dedup forgot it: it gets through, the restatement removes it
        + order("o1", 1, "c1", 1, 1, "1.00", START.plus(Duration.ofMinutes(170)));
    String lateClicks = "{\"click_id\":990001,\"session\":\"s1\",\"page\":\"p1\",\"dwell_seconds\":0.1,"
        + "\"is_bot\":false,\"clicked_at\":\"" + START.plusSeconds(120) + "\"}\n";
    String lateCustomer = "{\"customer_id\":3,\"segment\":\"s9\",\"city\":\"c9\",\"credit_limit\":123.45,"
        + "\"updated_at\":\"" + START.minus(Duration.ofHours(5)) + "\"}\n";
    String lateStore = "{\"country\":\"c1\",\"store_no\":1,\"manager\":\"m9\",\"opened_on\":\"2020-02-02\","
        + "\"changed_at\":\"" + START.minus(Duration.ofHours(1)) + "\"}\n"
        + "{\"country\":\"c1\",\"store_no\":2,\"closed\":true,\"changed_at\":\"" + START.minus(Duration.ofHours(1))
        + "\"}\n";
    arrive(new Arrival(5, List.of(LandingFile.of("orders", "late.jsonl", lateOrders),
        LandingFile.of("clicks", "late.jsonl", lateClicks), LandingFile.of("customers", "late.jsonl", lateCustomer),
        LandingFile.of("stores", "late.jsonl", lateStore))));
  }

  @Test
  @Order(3)
  void aFieldIsPromotedIntoAFactFeedAndIntoADimension() {
    String at = START.plus(Duration.ofMinutes(171)).toString();
    arrive(new Arrival(6, List.of(
        LandingFile.of("orders", "coupons.jsonl", order("o950", 1, "c3", 3, 2, "5.00", Instant.parse(at))
            .replace("}\n", ",\"coupon\":\"SPRING\"}\n")),
        LandingFile.of("customers", "tiers.jsonl", "{\"customer_id\":5,\"segment\":\"s1\",\"updated_at\":\"" + at
            + "\",\"tier\":\"gold\"}\n"))));
    succeeds(Cli.run(env, "evolve", "promote", "orders", "coupon"));
    succeeds(Cli.run(env, "evolve", "promote", "customers", "tier"));
    String later = START.plus(Duration.ofMinutes(172)).toString();
    arrive(new Arrival(7, List.of(
        LandingFile.of("orders", "coupons.jsonl", order("o951", 1, "c3", 3, 1, "6.00", Instant.parse(later))
            .replace("}\n", ",\"coupon\":\"SUMMER\"}\n")),
        LandingFile.of("customers", "tiers.jsonl", "{\"customer_id\":5,\"segment\":\"s1\",\"updated_at\":\"" + later
            + "\",\"tier\":\"platinum\"}\n"))));
    assertThat(columns(p.facts().get(0).dedupTable().sqlAt(ingest))).contains("coupon");
    assertThat(columns(p.dimensions().get(0).table().sqlAt(ingest))).contains("tier");
  }

  @Test
  @Order(4)
  void theRestatementRepairsEveryFeedAndPublishes() {
    Cli.Result r = succeeds(Cli.run(env, "restate"));
    assertThat(r.out()).as("%s", r).contains("audit:").doesNotContain("FAIL")
        .containsPattern("[1-9]\\d* finalized window\\(s\\) corrected, [1-9]\\d* record key\\(s\\) corrected, "
            + "[2-9]\\d* late dimension change\\(s\\) applied");
    succeeds(Cli.run(env, "publish"));
    Cli.Result again = succeeds(Cli.run(env, "restate"));
    assertThat(again.out()).as("a second run finds nothing").contains("nothing to restate");
    succeeds(Cli.run(env, "check"));
  }

  @Test
  @Order(5)
  void everyTableOnMainEqualsDuckDbOverTheLandedLines() throws Exception {
    try (PipelineOracle oracle = new PipelineOracle(landed, p.feeds().stream().map(Feed::name).toList())) {
      long rejected = 0;
      List<String> finalized = new ArrayList<>();
      for (FactFeed f : p.facts()) {
        PipelineOracle.Feed of = declared(f.schema(), f.name());
        assertEqual(f.raw().table(), f.schema().columns().columns(), oracle.raw(of));
        assertEqual(f.dedupTable(), of.columns(), oracle.deduplicated(of));
        rejected += oracle.invalid(of);
        for (Aggregate a : f.aggregates()) {
          Aggregation rule = a.rule();
          List<PipelineOracle.Measure> measures = rule.measures().stream().map(m -> new PipelineOracle.Measure(
              m.function().fileName(), m.of(), m.type())).toList();
          List<List<Object>> expected = oracle.windows(of, rule.groupBy(), rule.windows().size(), a.watermark(),
              measures);
          if (!expected.isEmpty()) {
            finalized.add(a.name());
          }
          String notNull = String.join(" AND ", rule.groupBy().stream().map(g -> g.name() + " IS NOT NULL")
              .toList());
          assertEqual(a.table(), rule.schema().columns(), expected, notNull);
        }
      }
      // the arrivals span hours: no day's window is final (daily-customers equals an oracle of none), the others are
      assertThat(finalized).as("the aggregates with final windows").contains("sales-per-store", "page-dwell");
      for (DimensionFeed d : p.dimensions()) {
        PipelineOracle.Feed of = declared(d.schema(), d.name());
        rejected += oracle.invalid(of);
        List<Column> attributes = new ArrayList<>(d.dimension().attributes());
        of.columns().stream().filter(c -> !d.schema().declares(c.name())).forEach(attributes::add);
        List<List<Object>> expected = oracle.history(of, attributes, d.dimension().delete().column().name(),
            d.dimension().delete().sql());
        List<Column> columns = new ArrayList<>(d.dimension().key());
        columns.addAll(attributes);
        columns.add(Column.of("valid_from", Type.TIMESTAMP));
        columns.add(Column.of("valid_to", Type.TIMESTAMP));
        columns.add(Column.of("is_current", Type.BOOLEAN));
        assertEqual(d.table(), columns, expected);
      }
      assertThat(spark.table(p.shared().rejected().sqlAt(main)).count()).as("every line not valid is quarantined")
          .isEqualTo(rejected).isPositive();
    }
  }

  /** The feed as the raw archive on main holds it: the file's columns, then those promoted into it. */
  private PipelineOracle.Feed declared(FeedSchema s, String name) {
    List<Column> columns = new ArrayList<>(s.columns().columns());
    List<String> onMain = columns(p.feed(name).raw().table().sqlAt(main));
    if (onMain.contains("coupon") && !s.declares("coupon")) {
      columns.add(Column.of("coupon", Type.STRING));
    }
    if (onMain.contains("tier") && !s.declares("tier")) {
      columns.add(Column.of("tier", Type.STRING));
    }
    return new PipelineOracle.Feed(name, columns, s.required().stream().map(Column::name).toList(),
        s.key().stream().map(Column::name).toList(), s.eventTime().name());
  }

  private void assertEqual(TableName table, List<Column> columns, List<List<Object>> expected) {
    assertEqual(table, columns, expected, "true");
  }

  /** The table's rows on main ({@code where}) against the oracle's. */
  private void assertEqual(TableName table, List<Column> columns, List<List<Object>> expected, String where) {
    OracleRows.assertEqual(spark, table.sqlAt(main), columns, expected, where);
  }

  private static String order(String id, int line, String country, int store, int qty, String price, Instant at) {
    return "{\"order_id\":\"" + id + "\",\"line_no\":" + line + ",\"store_country\":\"" + country + "\",\"store_no\":"
        + store + ",\"customer_id\":4,\"sku\":\"k1\",\"qty\":" + qty + ",\"price\":" + price + ",\"business_day\":\""
        + at.toString().substring(0, 10) + "\",\"ordered_at\":\"" + at + "\"}\n";
  }
}
