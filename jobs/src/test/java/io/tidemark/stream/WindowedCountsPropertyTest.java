package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Aggregation;
import io.tidemark.core.Fields;
import io.tidemark.core.Measure;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.testing.GeneratedFeeds;
import io.tidemark.testing.LocalSpark;
import io.tidemark.testing.Seed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * A windowed aggregate's stream groups records by Spark's {@code window()} and aggregates them in Spark
 * ({@link WindowedAggregate#windows}); the restatement and the publish gate find a record's window and a window's
 * measures by the core's rule ({@link Aggregation}): over generated event times (to the microsecond, some before the
 * epoch, some without a group) the seed's counts per company and window are exactly what the core's rule assigns, and
 * over generated declarations (composite groups, windows of any length, count, sum, min and max over every ordered
 * type) each window's measures are the rule's (doubles within a relative 1e-9, everything else exactly).
 */
class WindowedCountsPropertyTest {
  private final SparkSession spark = LocalSpark.get();

  @Test
  void theStreamsWindowsAreTheCoresWindows() {
    SplittableRandom rng = new SplittableRandom(23);
    for (Duration size : List.of(Duration.ofMinutes(5), Duration.ofSeconds(90))) {
      Windows windows = new Windows(size);
      Aggregation counts = new Aggregation(windows, Seed.COUNTS.groupBy(), Seed.COUNTS.windowStart(),
          Seed.COUNTS.measures());
      List<List<Object>> events = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        long micros = i % 20 == 0 ? rng.nextLong(-3_600_000_000L, 0)
            : 1_767_225_600_000_000L + rng.nextLong(0, 7_200_000_000L);
        events.add(Seed.event(i, rng.nextInt(8) == 0 ? null : "c" + rng.nextInt(4), 1.0,
            Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000)));
      }
      Map<List<Object>, Long> byRule = new HashMap<>();
      events.forEach(e -> byRule.merge(Arrays.asList(e.get(1), windows.start((Instant) e.get(3))), 1L, Long::sum));
      Set<List<Object>> expected = new HashSet<>();
      byRule.forEach((k, n) -> expected.add(Arrays.asList(k.get(0), k.get(1), n)));
      Set<List<Object>> bySpark = new HashSet<>();
      WindowedAggregate.windows(spark.createDataFrame(SparkRows.rows(events),
          SparkRows.struct(Seed.EVENTS.columns())), counts, Seed.EVENT_TS).collectAsList()
          .forEach(r -> bySpark.add(SparkRows.values(r)));
      assertThat(bySpark).as("counts per company and %s window", size).isEqualTo(expected);
    }
  }

  @Test
  void theStreamsAggregatesOfGeneratedFeedsAreTheCoresRule() {
    GeneratedFeeds gen = new GeneratedFeeds(24);
    int windows = 0;
    for (int round = 0; round < 6; round++) {
      GeneratedFeeds.Fact fact = gen.fact("f" + round);
      List<List<Object>> rows = gen.records(fact, 400);
      List<List<Object>> written = rows.stream().map(gen::otherwiseWritten).toList();
      var frame = spark.createDataFrame(SparkRows.rows(written), SparkRows.struct(fact.feed().columns())).cache();
      for (Aggregation a : fact.aggregations()) {
        String what = GeneratedFeeds.describe(fact.feed()) + " " + GeneratedFeeds.describe(a);
        List<Fields> fields = rows.stream().map(r -> GeneratedFeeds.fields(fact.feed().columns(), r)).toList();
        Map<Aggregation.Key, List<Object>> byRule = a.compute(fields, fact.feed().eventTime());
        Map<Aggregation.Key, List<Object>> bySpark = new LinkedHashMap<>();
        for (Row r : WindowedAggregate.windows(frame, a, fact.feed().eventTime()).collectAsList()) {
          Fields f = SparkRows.fields(r);
          assertThat(bySpark.put(a.keyOfOutput(f), a.measuresOf(f))).as(what + ": one row per window").isNull();
        }
        assertThat(bySpark.keySet()).as(what + ": the windows").isEqualTo(byRule.keySet());
        byRule.forEach((k, expected) -> {
          List<Object> got = bySpark.get(k);
          for (int i = 0; i < a.measures().size(); i++) {
            Measure m = a.measures().get(i);
            String at = what + ": " + m + " of " + k;
            if (expected.get(i) instanceof Double) {
              assertThat(m.same(got.get(i), expected.get(i))).as(at + ": " + got.get(i) + " within 1e-9 of "
                  + expected.get(i)).isTrue();
            } else {
              assertThat(got.get(i)).as(at).isEqualTo(expected.get(i));
            }
          }
        });
        windows += byRule.size();
      }
      frame.unpersist();
    }
    assertThat(windows).isGreaterThan(30);
    assertThat(gen.features()).contains("sum of double", "sum of decimal", "composite group",
        "window not dividing an hour").anyMatch(f -> f.startsWith("min of")).anyMatch(f -> f.startsWith("max of"));
  }
}
