package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LocalLanding;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Seed;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StreamScript;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A generated scenario (60k events, duplicates, late events, far-future jumps, malformed lines, 6 arrivals)
 * from a local directory, raw + dedup + counts after each arrival, against the DuckDB oracle.
 */
class GeneratedStreamsIT extends StackTest {
  private static final GeneratorSpec SPEC = new GeneratorSpec(2026, 60_000, 12, 0.03, 0.02, 2, 0.015, 6, 0, 1,
      GeneratorSpec.DEFAULT_START, 60);

  GeneratedStreamsIT() {
    super("generated");
  }

  @Test
  void countsDedupRawAndRejectedMatchTheOracle() throws Exception {
    TableName raw = fx.rawEvents("raw");
    TableName rejected = fx.table(TableCatalog::rejected, "rejected");
    TableName events = fx.events("events");
    TableName counts = fx.counts("counts");
    Path landing = tmp.resolve("landing");
    String source = landing.resolve("events").toString();
    List<List<Path>> runs = new ArrayList<>();
    StreamScript script = StreamScript.of(a -> runs.add(LocalLanding.write(landing, "", List.of(a))),
        () -> SeedContract.raw(spark, source, raw, rejected, tmp.resolve("cp-raw").toString()),
        () -> SeedContract.dedup(spark, source, events.toString(), tmp.resolve("cp-dedup").toString()),
        () -> SeedContract.counts(spark, source, counts.toString(), tmp.resolve("cp-counts").toString()));
    script.eachArrival(new GeneratedScenario(SPEC, Seed.PIPELINE).arrivals(), a -> System.out.println("arrival "
        + a.number() + "\n  " + script.last(0).summary() + "\n  " + script.last(1).summary() + "\n  "
        + script.last(2).summary()));
    long late = script.runs().stream().mapToLong(r -> r.get(2).lateRowsDropped()).sum();

    try (DuckOracle oracle = new DuckOracle(runs)) {
      Map<String, Long> reasons = oracle.reasons();
      long lines = oracle.lines();
      assertThat(lines).as("lines in the files").isGreaterThan(60_000);
      assertThat(fx.count(raw) + fx.count(rejected)).as("raw + rejected account for every line").isEqualTo(lines);
      assertThat(fx.count(raw)).as("valid lines, duplicates and late ones included").isEqualTo(reasons.get("valid"));
      assertThat(fx.strings("SELECT CAST(arrival AS STRING) FROM " + raw.sql() + " GROUP BY arrival ORDER BY arrival"))
          .as("each row knows its arrival").containsExactly("1", "2", "3", "4", "5", "6");
      Map<String, Long> rejectedByReason = new LinkedHashMap<>();
      for (String r : fx.strings("SELECT regexp_extract(reason, '^[^:]*', 0) FROM " + rejected.sql())) {
        rejectedByReason.merge(r, 1L, Long::sum);
      }
      Map<String, Long> expected = new LinkedHashMap<>(reasons);
      expected.remove("valid");
      assertThat(rejectedByReason).as("rejections by reason").isEqualTo(expected);
      assertThat(fx.count(rejected)).as(">= 1%% malformed lines").isGreaterThanOrEqualTo(lines / 100);

      List<String> expectedCounts = oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5));
      assertThat(fx.countRows(counts)).as("windowed counts vs the watermark replay in DuckDB")
          .isEqualTo(expectedCounts);
      assertThat(late).as("late events were dropped").isPositive();

      List<String> expectedEvents = oracle.dedup(Duration.ofMinutes(30));
      assertThat(fx.eventRows(events)).as("dedup vs the watermark replay in DuckDB").isEqualTo(expectedEvents);
      assertThat(fx.strings("SELECT CAST(count(*) - count(DISTINCT event_id) AS STRING) FROM " + events.sql()))
          .as("no id twice within the horizon; ids beyond it are the restatement's job")
          .containsExactly(oracle.strings("SELECT CAST(count(*) - count(DISTINCT event_id) AS VARCHAR) FROM kept")
              .get(0));
    }
  }
}
