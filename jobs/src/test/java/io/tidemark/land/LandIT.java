package io.tidemark.land;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Seed;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** Arrivals land on the shared stack's S3 server, under prefixes of their own, with the Lander and the command. */
class LandIT extends StackTest {
  private static final String EVENT_SCHEMA = "event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP";

  private final Storage storage = stack.lakehouse().storage();
  private final String bucket = stack.config().landingBucket();

  /** Spark reads back what landed; DuckDB, over a local copy of the same objects, agrees row for row. */
  @Test
  void landedSeedReadsBackThroughSparkAndMatchesDuckDb() throws Exception {
    String prefix = TestStack.unique("land");
    Lander lander = new Lander(storage, bucket, prefix);
    for (Arrival a : SeedScenarios.ALL.arrivals()) {
      assertThat(lander.land(a)).allMatch(Lander.Outcome::written);
    }
    List<Row> rows = spark.read().schema(EVENT_SCHEMA).json(lander.sourceUri(SeedScenarios.EVENTS))
        .selectExpr("event_id", "company_id", "amount", "date_format(event_ts, 'yyyy-MM-dd HH:mm:ss') AS ts",
            "arrival")
        .orderBy("event_id", "arrival").collectAsList();
    assertThat(rows).as("7 counts lines + 10 dedup lines").hasSize(17);
    assertThat(rows).extracting(r -> r.getInt(4)).as("arrival=NNNN directories become a column")
        .containsOnly(1, 2, 3);

    for (Storage.ObjectInfo o : lander.listed(SeedScenarios.EVENTS)) {
      storage.download(bucket, o.key(), tmp.resolve(o.key()));
    }
    List<String> duck = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
      st.execute("SET TimeZone = 'UTC'");
      ResultSet rs = st.executeQuery("SELECT event_id, company_id, amount, strftime(event_ts, '%Y-%m-%d %H:%M:%S'), "
          + "CAST(regexp_extract(filename, 'arrival=(\\d+)', 1) AS INT) AS arrival "
          + "FROM read_json('" + tmp.resolve(prefix) + "/events/*/*.jsonl', filename = true, columns = {event_id: "
          + "'INTEGER', company_id: 'VARCHAR', amount: 'DOUBLE', event_ts: 'TIMESTAMPTZ'}) ORDER BY event_id, arrival");
      while (rs.next()) {
        duck.add(rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getDouble(3) + "|" + rs.getString(4) + "|"
            + rs.getInt(5));
      }
    }
    List<String> sparkRows = rows.stream().map(r -> r.getInt(0) + "|" + r.getString(1) + "|" + r.getDouble(2) + "|"
        + r.getString(3) + "|" + r.getInt(4)).toList();
    assertThat(sparkRows).as("Spark over s3a vs DuckDB over local copies").isEqualTo(duck);
    assertThat(sparkRows).contains("6|c1|13.0|2026-01-01 00:20:00|2", "7|c1|14.0|2026-01-01 00:03:00|3");
  }

  @Test
  void landingTheSameArrivalAgainIsANoOp() {
    String prefix = TestStack.unique("again");
    Lander lander = new Lander(storage, bucket, prefix);
    Arrival first = SeedScenarios.SCD2.arrivals().get(0);
    lander.land(first);
    String key = prefix + "/companies/arrival=0001/seed-scd2.jsonl";
    Optional<Storage.ObjectInfo> before = storage.stat(bucket, key);
    assertThat(before).isPresent();

    List<Lander.Outcome> again = new Lander(storage, bucket, prefix).land(first);
    assertThat(again).extracting(Lander.Outcome::written).containsExactly(false);
    assertThat(storage.stat(bucket, key)).as("object untouched").isEqualTo(before);
    assertThat(storage.list(bucket, prefix + "/")).hasSize(1);
  }

  @Test
  void otherContentForALandedFileIsRefused() {
    String prefix = TestStack.unique("immutable");
    Lander lander = new Lander(storage, bucket, prefix);
    lander.land(new Arrival(1, List.of(LandingFile.of(SeedScenarios.EVENTS, "a.jsonl", "{\"event_id\":1}\n"))));
    assertThatThrownBy(() -> lander.land(new Arrival(1,
        List.of(LandingFile.of(SeedScenarios.EVENTS, "a.jsonl", "{\"event_id\":2}\n")))))
        .isInstanceOf(LandingException.class)
        .hasMessage("s3://" + bucket + "/" + prefix + "/events/arrival=0001/a.jsonl already landed with other "
            + "content; arrivals are immutable: land this as a new arrival or under another --prefix");
    assertThat(new String(storage.get(bucket, prefix + "/events/arrival=0001/a.jsonl"), StandardCharsets.UTF_8))
        .isEqualTo("{\"event_id\":1}\n");
  }

  /** The command: --from a directory takes the next arrival number, and recognizes files it already landed. */
  @Test
  void landFromDirectoryWithTheCommand() throws Exception {
    String prefix = TestStack.unique("from");
    Path dir = Files.createDirectories(tmp.resolve("batch"));
    Files.writeString(dir.resolve("part-1.jsonl"), "{\"event_id\":1,\"company_id\":\"c1\",\"amount\":1.0,"
        + "\"event_ts\":\"2026-01-01T00:00:00Z\"}\n");
    Files.writeString(dir.resolve(".hidden"), "ignored");
    Map<String, String> env = stack.env();

    Cli.Result first = Cli.run(env, "land", "--from", dir.toString(), "--prefix", prefix);
    assertThat(first.exitCode()).as("%s", first).isZero();
    assertThat(first.out()).contains("arrival 1: s3://" + bucket + "/" + prefix
        + "/events/arrival=0001/part-1.jsonl  1 line(s)").contains("landed");

    Cli.Result again = Cli.inProcess(env, "land", "--from", dir.toString(), "--prefix", prefix);
    assertThat(again.exitCode()).as("%s", again).isZero();
    assertThat(again.out()).contains("arrival=0001/part-1.jsonl").contains("already there, unchanged");

    Files.writeString(dir.resolve("part-1.jsonl"), "{\"event_id\":2}\n");
    Cli.Result next = Cli.inProcess(env, "land", "--from", dir.toString(), "--prefix", prefix);
    assertThat(next.out()).as("new content is the next arrival").contains("arrival=0002/part-1.jsonl");
    assertThat(storage.list(bucket, prefix + "/")).hasSize(2);
  }

  @Test
  void generatedScenarioWithTheCommand() {
    String prefix = TestStack.unique("gen");
    Cli.Result r = Cli.run(stack.env(), "land", "--scenario", "generated", "--events", "500", "--arrivals", "3",
        "--changes", "60", "--keys", "10", "--prefix", prefix);
    assertThat(r.exitCode()).as("%s", r).isZero();
    List<Storage.ObjectInfo> objects = storage.list(bucket, prefix + "/");
    assertThat(objects).hasSize(6);
    List<Arrival> expected = new GeneratedScenario(new GeneratorSpec(42, 500, 20, 0.02, 0.01, 1, 0.01, 3, 60, 10,
        GeneratorSpec.DEFAULT_START, 60), Seed.PIPELINE).arrivals();
    LandingFile firstEvents = expected.get(0).files().get(0);
    assertThat(storage.get(bucket, prefix + "/events/arrival=0001/" + firstEvents.name()))
        .as("what landed is what the generator makes").isEqualTo(firstEvents.content());

    Cli.Result one = Cli.inProcess(stack.env(), "land", "--scenario", "seed-counts", "--arrival", "9", "--prefix",
        prefix);
    assertThat(one.exitCode()).isEqualTo(1);
    assertThat(one.errLines()).containsExactly("tidemark: --arrival 9: scenario seed-counts has arrivals 1..3");
  }

  /**
   * --replay: arrivals landed under one prefix land elsewhere with their numbers, whole or one at a time, from S3
   * or from a local copy of the same layout; a missing arrival is named.
   */
  @Test
  void replayLandsArrivalsLandedElsewhereWithTheirNumbers() {
    String from = TestStack.unique("replay-from");
    String all = TestStack.unique("replay-all");
    String one = TestStack.unique("replay-one");
    Lander source = new Lander(storage, bucket, from);
    List<Arrival> arrivals = SeedScenarios.all().stream().filter(s -> s.name().equals("seed")).findFirst()
        .orElseThrow().arrivals();
    arrivals.forEach(source::land);

    Cli.Result whole = Cli.run(stack.env(), "land", "--replay", "s3://" + bucket + "/" + from, "--prefix", all);
    assertThat(whole.exitCode()).as("%s", whole).isZero();
    assertThat(keys(all)).isEqualTo(keys(from)).isNotEmpty();
    for (Storage.ObjectInfo o : storage.list(bucket, from + "/")) {
      assertThat(storage.get(bucket, all + o.key().substring(from.length()))).isEqualTo(storage.get(bucket, o.key()));
    }

    Path local = tmp.resolve("landed");
    Cli.Result copy = Cli.inProcess(stack.env(), "land", "--replay", "s3a://" + bucket + "/" + from, "--to-dir",
        local.toString());
    assertThat(copy.exitCode()).as("%s", copy).isZero();
    Cli.Result second = Cli.inProcess(stack.env(), "land", "--replay", local.toString(), "--arrival", "2", "--prefix",
        one);
    assertThat(second.exitCode()).as("%s", second).isZero();
    assertThat(keys(one)).isNotEmpty().allMatch(k -> k.contains("/arrival=0002/"))
        .isEqualTo(keys(from).stream().filter(k -> k.contains("/arrival=0002/")).toList());

    Cli.Result missing = Cli.inProcess(stack.env(), "land", "--replay", local.toString(), "--arrival", "9", "--prefix",
        one);
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.errLines()).containsExactly("tidemark: --arrival 9: " + local + " has arrivals 1.."
        + arrivals.size());
  }

  /** The keys under a prefix, without it. */
  private List<String> keys(String prefix) {
    return storage.list(bucket, prefix + "/").stream().map(o -> o.key().substring(prefix.length())).toList();
  }
}
