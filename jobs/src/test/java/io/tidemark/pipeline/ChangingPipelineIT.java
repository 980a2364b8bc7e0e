package io.tidemark.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.LocalLanding;
import io.tidemark.testing.Cli;
import io.tidemark.testing.OracleRows;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.PipelineOracle;
import io.tidemark.testing.Steps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The file of a running pipeline changed, by the command line: the seed's file, run over the seed's arrivals, then
 * edited. A changed window or a retyped column is refused, by the streams until bootstrap saw it and by bootstrap in
 * one line, and nothing is written; a new optional column is promoted by bootstrap (the archived rows that carried it
 * backfilled), a new aggregate and a new feed get their tables and start on checkpoints of their own, reading every
 * arrival, while the other streams go on from theirs. After a restatement every table equals DuckDB's over the landed
 * lines ({@link PipelineOracle}).
 */
@Steps
class ChangingPipelineIT extends PipelineOnItsOwnBranches {
  private static final String SEED = read(Path.of("../pipelines/seed.yml"));
  private static final Path FILE = file();
  private static final String REGION = "      - {name: amount, type: double}\n      - {name: region, type: string}\n";
  private static final String NEW_AGGREGATE = """
            - name: amount-per-hour
              window: 1 hour
              watermark: 20 minutes
              group_by: [company_id]
              measures:
                - {name: lines, function: count}
                - {name: total, function: sum, column: amount}
                - {name: largest, function: max, column: amount}
                - {name: first_region, function: min, column: region}

      """;
  private static final String NEW_FEED = """
        - name: refunds
          columns:
            - {name: refund_id, type: long, required: true}
            - {name: event_id, type: int}
            - {name: refunded_at, type: timestamp, required: true}
          key: [refund_id]
          event_time: refunded_at
          dedup: {watermark: 1 hour}

      """;

  private Path landed;

  ChangingPipelineIT() {
    super("changing");
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path file() {
    try {
      Path f = Files.createTempFile("changing-pipeline", ".yml");
      Files.writeString(f, SEED);
      f.toFile().deleteOnExit();
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  protected Path pipelineFile() {
    return FILE;
  }

  private static void declare(String text) throws IOException {
    Files.writeString(FILE, text);
  }

  private static String edited(String from, String to) {
    assertThat(SEED).contains(from);
    return SEED.replace(from, to);
  }

  private void arrive(Arrival a) {
    lander.land(a);
    LocalLanding.write(landed, "", List.of(a));
    succeeds(Cli.run(env, "stream", "all"));
    succeeds(Cli.run(env, "publish"));
  }

  private static String event(int id, String company, double amount, String at, String region) {
    return "{\"event_id\":" + id + ",\"company_id\":\"" + company + "\",\"amount\":" + amount + ",\"event_ts\":\""
        + at + "\"" + (region == null ? "" : ",\"region\":\"" + region + "\"") + "}\n";
  }

  private static long linesRead(Cli.Result r, String stream) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(stream) + ": \\d+ batch\\(es\\), (\\d+) lines read")
        .matcher(r.out());
    assertThat(m.find()).as("%s in %s", stream, r.out()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private String head() {
    return refs.branch(ingest).getHash();
  }

  @Test
  @Order(1)
  void theSeedRunsArrivalByArrival() {
    landed = dir.resolve("landed");
    succeeds(Cli.run(env, "land", "--scenario", "seed", "--to-dir", landed.toString()));
    for (int k = 1; k <= 4; k++) {
      succeeds(Cli.run(env, "land", "--scenario", "seed", "--arrival", Integer.toString(k)));
      succeeds(Cli.run(env, "stream", "all"));
      succeeds(Cli.run(env, "publish"));
    }
    // lines with a key the file does not declare yet: kept in the raw archive's rescued data
    arrive(new Arrival(5, List.of(LandingFile.of("events", "regions.jsonl",
        event(9001, "c1", 2.5, "2026-01-01T02:00:00Z", "eu") + event(9002, "c2", 1.0, "2026-01-01T02:01:00Z", "us")))));
  }

  @Test
  @Order(2)
  void aChangedWindowOrTypeIsRefusedAndNothingIsWritten() throws IOException {
    String before = head();
    TableName counts = config.pipeline().aggregates().get(0).table();
    declare(edited("        window: 5 minutes", "        window: 10 minutes"));
    Cli.Result stream = Cli.run(env, "stream", "all");
    assertThat(stream.exitCode()).as("%s", stream).isNotZero();
    assertThat(stream.err()).contains("the pipeline file changed " + counts + "'s window (5 minutes -> 10 minutes) "
        + "since it was made: run tidemark bootstrap");
    Cli.Result bootstrap = Cli.run(env, "bootstrap");
    assertThat(bootstrap.exitCode()).as("%s", bootstrap).isEqualTo(2);
    assertThat(bootstrap.err()).hasLineCount(1).contains("the aggregate windowed-counts (" + counts + "): its window "
        + "changed from 5 minutes to 10 minutes: the table holds windows made the old way; declare a new aggregate");
    declare(edited("{name: amount, type: double}", "{name: amount, type: long}"));
    Cli.Result retyped = Cli.run(env, "bootstrap");
    assertThat(retyped.exitCode()).isEqualTo(2);
    assertThat(retyped.err()).hasLineCount(1).contains("the column amount was double and is long now");
    assertThat(head()).as("nothing written on " + ingest).isEqualTo(before);
    declare(SEED);
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(head()).as("the file put back: nothing new to do").isEqualTo(before);
  }

  @Test
  @Order(3)
  void bootstrapPromotesANewColumnAndMakesTheNewTables() throws IOException {
    declare(edited("dimensions:\n", NEW_FEED + "dimensions:\n")
        .replace("      - {name: amount, type: double}\n", REGION)
        .replace("          - {name: n, function: count}\n", "          - {name: n, function: count}\n"
            + NEW_AGGREGATE));
    Pipeline p = TidemarkConfig.of(env, Map.of()).pipeline();
    TableName perHour = p.aggregates().get(1).table();
    Cli.Result early = Cli.run(env, "stream", "all");
    assertThat(early.exitCode()).as("%s", early).isNotZero();
    assertThat(early.err()).contains(perHour.toString()).contains("tidemark bootstrap");
    Cli.Result b = succeeds(Cli.run(env, "bootstrap"));
    assertThat(b.out()).contains("promoted events.region as STRING: 2 archived row(s) and 2 record(s) backfilled")
        .containsPattern("tables created: .*" + Pattern.quote(perHour.toString()))
        .contains(p.feed("refunds").raw().table().toString());
    assertThat(strings("SELECT concat(event_id, ':', region) FROM " + p.facts().get(0).dedupTable().sqlAt(ingest)
        + " WHERE region IS NOT NULL")).containsExactlyInAnyOrder("9001:eu", "9002:us");
    succeeds(Cli.run(env, "publish"));
  }

  @Test
  @Order(4)
  void theNewStreamsStartOnCheckpointsOfTheirOwnAndTheOthersGoOn() {
    String events = event(9003, "c1", 4.0, "2026-01-01T02:10:00Z", "eu") + event(9004, "c3", 3.0,
        "2026-01-01T02:20:00Z", null) + event(9001, "c1", 2.5, "2026-01-01T02:00:00Z", "eu");
    String refunds = "{\"refund_id\":1,\"event_id\":9001,\"refunded_at\":\"2026-01-01T02:30:00Z\"}\n"
        + "{\"refund_id\":1,\"event_id\":9001,\"refunded_at\":\"2026-01-01T02:30:00Z\"}\n"
        + "{\"refund_id\":2,\"refunded_at\":\"not a time\"}\n";
    Arrival six = new Arrival(6, List.of(LandingFile.of("events", "more.jsonl", events),
        LandingFile.of("refunds", "refunds.jsonl", refunds)));
    lander.land(six);
    LocalLanding.write(landed, "", List.of(six));
    Cli.Result r = succeeds(Cli.run(env, "stream", "all"));
    assertThat(linesRead(r, "windowed-counts")).as("from its own checkpoint: arrival 6 only").isEqualTo(3);
    assertThat(linesRead(r, "dedup")).isEqualTo(3);
    assertThat(linesRead(r, "amount-per-hour")).as("a checkpoint of its own: every arrival").isEqualTo(17 + 2 + 3);
    assertThat(linesRead(r, "raw-refunds")).isEqualTo(3);
    assertThat(dir.resolve("cp").resolve("amount-per-hour")).isDirectory();
    Cli.Result published = succeeds(Cli.run(env, "publish"));
    assertThat(published.out()).contains("events arrival 6, refunds arrival 6");
  }

  @Test
  @Order(5)
  void afterARestatementEveryTableEqualsDuckDbOverTheLandedLines() throws Exception {
    succeeds(Cli.run(env, "restate"));
    succeeds(Cli.run(env, "publish"));
    succeeds(Cli.run(env, "check"));
    Pipeline p = TidemarkConfig.of(env, Map.of()).pipeline();
    try (PipelineOracle oracle = new PipelineOracle(landed, List.of("events", "refunds"))) {
      for (FactFeed f : p.facts()) {
        PipelineOracle.Feed of = declared(f.schema(), f.name());
        OracleRows.assertEqual(spark, f.raw().table().sqlAt(main), of.columns(), oracle.raw(of), "true");
        OracleRows.assertEqual(spark, f.dedupTable().sqlAt(main), of.columns(), oracle.deduplicated(of), "true");
        for (Aggregate a : f.aggregates()) {
          Aggregation rule = a.rule();
          List<List<Object>> expected = oracle.windows(of, rule.groupBy(), rule.windows().size(), a.watermark(),
              rule.measures().stream().map(m -> new PipelineOracle.Measure(m.function().fileName(), m.of(),
                  m.type())).toList());
          assertThat(expected).as("%s has final windows", a.name()).isNotEmpty();
          OracleRows.assertEqual(spark, a.table().sqlAt(main), rule.schema().columns(), expected,
              "company_id IS NOT NULL");
        }
      }
    }
  }

  private static PipelineOracle.Feed declared(FeedSchema s, String name) {
    return new PipelineOracle.Feed(name, s.columns().columns(), s.required().stream().map(Column::name).toList(),
        s.key().stream().map(Column::name).toList(), s.eventTime().name());
  }
}
