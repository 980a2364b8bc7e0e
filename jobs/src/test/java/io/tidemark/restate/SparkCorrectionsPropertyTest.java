package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Change;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.Occurrence;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.stream.Scd2ChangeLog;
import io.tidemark.testing.GeneratedFeeds;
import io.tidemark.testing.LocalSpark;
import io.tidemark.testing.Seed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@link SparkCorrections} works out in Spark what {@link DriverCorrections} reads on the driver, by the core's rules:
 * over generated rows its plans give what the rules give: the window of a record and when it is final (windows of any
 * length), the first occurrence of a record (collisions on every sort key, nulls, -0.0 and NaN, strings Java and Spark
 * order apart, composite keys of generated feeds), the late changes the log lacks (the seed's and generated
 * dimensions').
 */
class SparkCorrectionsPropertyTest {
  private static final io.tidemark.core.Column TS = io.tidemark.core.Column.of("ts", Type.TIMESTAMP);
  private static final io.tidemark.core.Column ID = io.tidemark.core.Column.of("id", Type.BIGINT);
  private static final Schema WHERE = Schema.of(Ingest.BATCH_ID, Ingest.SOURCE_FILE, Ingest.INGEST_TS);
  private final SparkSession spark = LocalSpark.get();

  private Dataset<Row> frame(List<List<Object>> rows, Schema schema) {
    return spark.createDataFrame(SparkRows.rows(rows), SparkRows.struct(schema));
  }

  @Test
  void theWindowOfAnEventAndWhenItIsFinalAreTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(11);
    GeneratedFeeds gen = new GeneratedFeeds(12);
    List<Duration> sizes = new ArrayList<>(List.of(Duration.ofMinutes(5), Duration.ofSeconds(7),
        Duration.ofHours(1)));
    for (int i = 0; i < 5; i++) {
      sizes.add(gen.window());
    }
    for (Duration size : sizes) {
      Windows windows = new Windows(size);
      long sizeMicros = size.toNanos() / 1_000;
      // a watermark anywhere, or on a window's end (a window ending there is final, the next one not)
      Instant watermark = Instant.parse("2026-01-01T00:00:00Z").plusMillis(rng.nextLong(-7_200_000, 7_200_000));
      if (rng.nextBoolean()) {
        watermark = windows.start(watermark);
      }
      List<List<Object>> rows = new ArrayList<>();
      Map<Long, Instant> starts = new HashMap<>();
      Map<Long, Boolean> isFinal = new HashMap<>();
      for (long i = 0; i < 2_000; i++) {
        // microsecond times around the watermark and on windows' edges, some before the epoch
        long micros = switch ((int) (i % 10)) {
          case 0 -> rng.nextLong(-86_400_000_000L, 0);
          case 1 -> io.tidemark.core.Times.micros(watermark) + rng.nextLong(-3, 3) * sizeMicros + rng.nextLong(-1, 2);
          default -> 1_767_225_600_000_000L + rng.nextLong(-10_800_000_000L, 10_800_000_000L);
        };
        Instant ts = io.tidemark.core.Times.ofMicros(micros);
        rows.add(Arrays.asList(i, ts));
        starts.put(i, windows.start(ts));
        isFinal.put(i, windows.isFinal(windows.start(ts), watermark));
      }
      Dataset<Row> events = frame(rows, Schema.of(ID, TS))
          .withColumn("start", SparkCorrections.windowStart(col(TS.name()), size));
      events = events.withColumn("final", SparkCorrections.isFinal(col("start"), size, watermark));
      List<Row> bySpark = events.collectAsList();
      // every generated event came back, and both verdicts occur: a loop over none, or over one kind, checks nothing
      assertThat(bySpark).as("events Spark windowed (%s)", size).hasSize(rows.size());
      assertThat(isFinal.values()).as("final and open windows among them (%s)", size).contains(true, false);
      int finals = 0;
      for (Row r : bySpark) {
        long id = r.getLong(0);
        assertThat(r.getTimestamp(2).toInstant()).as("the window of %s (%s)", r.get(1), size).isEqualTo(starts.get(id));
        assertThat(r.getBoolean(3)).as("%s final under %s", r.get(2), watermark).isEqualTo(isFinal.get(id));
        finals += r.getBoolean(3) ? 1 : 0;
      }
      assertThat(finals).as("some final, some not").isBetween(1, 1_999);
    }
  }

  @Test
  void theFirstOccurrenceIsTheCoresOrder() {
    SplittableRandom rng = new SplittableRandom(5);
    String[] files = {"s3a://l/events/arrival=0001/a.jsonl", "s3a://l/events/arrival=0001/\u00e9.jsonl",
        "s3a://l/events/arrival=0001/\uff21.jsonl", "s3a://l/events/arrival=0001/\ud83d\ude00.jsonl", null};
    String[] companies = {"c1", "C1", "\ud83d\ude00", null};
    Double[] amounts = {1.0, -0.0, 0.0, Double.NaN, null, -1.5};
    List<Occurrence> all = new ArrayList<>();
    for (int id = 0; id < 400; id++) {
      for (int k = rng.nextInt(1, 7); k > 0; k--) {
        Instant ts = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(rng.nextInt(3));
        all.add(new Occurrence(Seed.event(id, companies[rng.nextInt(companies.length)],
            amounts[rng.nextInt(amounts.length)], ts), rng.nextInt(4) == 0 ? null : (long) rng.nextInt(3),
            files[rng.nextInt(files.length)], rng.nextInt(5) == 0 ? null : ts.plusSeconds(rng.nextInt(2))));
      }
    }
    assertThat(firstsBySpark(Seed.EVENTS, all, null)).isEqualTo(firstsByRule(Seed.EVENTS, all)).hasSize(400);
  }

  @Test
  void theFirstOccurrenceOfGeneratedFeedsIsTheCoresOrder() {
    GeneratedFeeds gen = new GeneratedFeeds(6);
    String[] files = {"s3a://l/f/arrival=0001/a.jsonl", "s3a://l/f/arrival=0001/\uff21.jsonl",
        "s3a://l/f/arrival=0001/\ud83d\ude00.jsonl", null};
    Instant t0 = Instant.parse("1969-12-31T23:59:59.999999Z");
    int keys = 0;
    for (int round = 0; round < 3; round++) {
      GeneratedFeeds.Fact fact = gen.fact("f" + round);
      SplittableRandom rng = gen.random();
      List<Occurrence> all = new ArrayList<>();
      for (List<Object> r : gen.records(fact, 300)) {
        all.add(new Occurrence(r, rng.nextInt(4) == 0 ? null : (long) rng.nextInt(2), files[rng.nextInt(files.length)],
            rng.nextInt(5) == 0 ? null : t0.plusNanos(1_000L * rng.nextInt(2))));
      }
      Set<List<Object>> byRule = firstsByRule(fact.feed(), all);
      assertThat(firstsBySpark(fact.feed(), all, gen)).as(GeneratedFeeds.describe(fact.feed())).isEqualTo(byRule);
      keys += byRule.size();
    }
    assertThat(keys).isGreaterThan(15);
    assertThat(gen.features()).contains("composite key", "key decimal", "key date", "key string", "key int");
  }

  /** Each key's first occurrence by the core's order: its values and where it came from, as SQL compares them. */
  private static Set<List<Object>> firstsByRule(FeedSchema feed, List<Occurrence> all) {
    Map<List<Object>, Occurrence> first = new HashMap<>();
    all.forEach(o -> first.merge(o.key(feed), o, (a, b) -> Occurrence.firstFirst(feed).compare(a, b) <= 0 ? a : b));
    Set<List<Object>> out = new HashSet<>();
    first.values().forEach(o -> out.add(GeneratedFeeds.sql(withWhere(o))));
    return out;
  }

  /** The same in Spark: row_number over the plan's order ({@link SparkCorrections#firstOccurrence}). */
  private Set<List<Object>> firstsBySpark(FeedSchema feed, List<Occurrence> all, GeneratedFeeds written) {
    List<List<Object>> rows = all.stream().map(o -> written == null ? withWhere(o)
        : written.otherwiseWritten(withWhere(o))).toList();
    Dataset<Row> firstInSpark = frame(rows, feed.columns().plus(WHERE)).withColumn("__first", row_number()
        .over(SparkCorrections.firstOccurrence(feed))).where(col("__first").equalTo(lit(1))).drop("__first");
    Set<List<Object>> bySpark = new HashSet<>();
    List<Row> collected = firstInSpark.collectAsList();
    collected.forEach(r -> bySpark.add(GeneratedFeeds.sql(SparkRows.values(r))));
    assertThat(collected).as("one per key").hasSize(bySpark.size());
    return bySpark;
  }

  private static List<Object> withWhere(Occurrence o) {
    List<Object> v = new ArrayList<>(o.values());
    v.addAll(Arrays.asList(o.batchId(), o.sourceFile(), o.ingestTs()));
    return v;
  }

  @Test
  void theLateChangesAreTheCoresRule() {
    SplittableRandom rng = new SplittableRandom(3);
    DimensionSchema d = Seed.COMPANIES;
    String[] names = {"Acme", null, "\ud83d\ude00"};
    Boolean[] deleted = {false, true, null};
    List<List<Object>> raw = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      raw.add(Arrays.asList("c" + rng.nextInt(20), names[rng.nextInt(names.length)],
          names[rng.nextInt(names.length)], Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(30)),
          deleted[rng.nextInt(deleted.length)]));
    }
    assertLateChangesAreTheRules(d, raw, Instant.parse("2026-01-01T00:20:00Z"), null, rng);
  }

  @Test
  void theLateChangesOfGeneratedDimensionsAreTheCoresRule() {
    GeneratedFeeds gen = new GeneratedFeeds(4);
    for (int round = 0; round < 3; round++) {
      DimensionSchema d = gen.dimension("d" + round);
      List<List<Object>> raw = gen.changes(d, 200);
      List<Instant> times = raw.stream().map(r -> (Instant) r.get(d.feed().columns().index(d.changeTime())))
          .sorted().toList();
      assertLateChangesAreTheRules(d, raw, times.get(times.size() / 2), gen, gen.random());
    }
    assertThat(gen.features()).contains("composite key", "key decimal", "key date", "boolean marker",
        "string marker", "attribute double");
  }

  /**
   * The candidates (raw rows of the feed) final under the watermark, normalized, that a log (a third of the
   * candidates' changes) lacks: in Spark ({@link SparkCorrections#finalChanges}, {@link Scd2ChangeLog#unlogged}) as by
   * {@link CorrectionRules#lateChanges}, once each.
   */
  private void assertLateChangesAreTheRules(DimensionSchema d, List<List<Object>> raw, Instant watermark,
                                            GeneratedFeeds written, SplittableRandom rng) {
    List<Change> candidates = raw.stream().map(r -> d.change(GeneratedFeeds.fields(d.feed().columns(), r))).toList();
    List<Change> logged = candidates.stream().filter(c -> rng.nextInt(3) == 0).distinct().toList();
    Set<List<Object>> byRule = new HashSet<>();
    List<Change> late = CorrectionRules.lateChanges(candidates, watermark, logged);
    late.forEach(c -> byRule.add(GeneratedFeeds.sql(d.logRow(c))));
    assertThat(late).as("once each").hasSize(byRule.size());
    Dataset<Row> candidatesFrame = frame(written == null ? raw : raw.stream().map(written::otherwiseWritten).toList(),
        d.feed().columns());
    Dataset<Row> lateInSpark = Scd2ChangeLog.unlogged(SparkCorrections.finalChanges(candidatesFrame, watermark, d),
        frame(logged.stream().map(d::logRow).toList(), d.logged()));
    Set<List<Object>> bySpark = new HashSet<>();
    List<Row> rows = lateInSpark.collectAsList();
    rows.forEach(r -> bySpark.add(GeneratedFeeds.sql(SparkRows.values(r))));
    assertThat(rows).as("once each").hasSize(bySpark.size());
    assertThat(bySpark).as(GeneratedFeeds.describe(d)).isEqualTo(byRule).isNotEmpty();
  }
}
