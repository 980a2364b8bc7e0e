package io.tidemark.stream;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Event;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.testing.LocalSpark;
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
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The counts stream groups events by Spark's {@code window()}; the restatement and the publish gate find an event's
 * window by {@link Windows}: over generated event times (to the microsecond, some before the epoch, some without a
 * company) the stream's plan counts per company and window exactly what the core's rule assigns.
 */
class WindowedCountsPropertyTest {
  private final SparkSession spark = LocalSpark.get();

  @Test
  void theStreamsWindowsAreTheCoresWindows() {
    SplittableRandom rng = new SplittableRandom(23);
    for (Duration size : List.of(Duration.ofMinutes(5), Duration.ofSeconds(90))) {
      Windows windows = new Windows(size);
      List<Event> events = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        long micros = i % 20 == 0 ? rng.nextLong(-3_600_000_000L, 0)
            : 1_767_225_600_000_000L + rng.nextLong(0, 7_200_000_000L);
        events.add(new Event(i, rng.nextInt(8) == 0 ? null : "c" + rng.nextInt(4), 1.0,
            Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000)));
      }
      Map<List<Object>, Long> byRule = new HashMap<>();
      events.forEach(e -> byRule.merge(Arrays.asList(e.companyId(), windows.start(e.eventTs())), 1L, Long::sum));
      Set<List<Object>> expected = new HashSet<>();
      byRule.forEach((k, n) -> expected.add(Arrays.asList(k.get(0), k.get(1), n)));
      Set<List<Object>> bySpark = new HashSet<>();
      WindowedCounts.counts(spark.createDataFrame(SparkRows.rows(events.stream().map(Event::values).toList()),
          SparkRows.struct(Seed.EVENTS.columns())), size).collectAsList()
          .forEach(r -> bySpark.add(SparkRows.values(r)));
      assertThat(bySpark).as("counts per company and %s window", size).isEqualTo(expected);
    }
  }
}
