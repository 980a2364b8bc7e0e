package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionRules.RawEvent;
import io.tidemark.core.Event;
import io.tidemark.core.Events;
import io.tidemark.core.Ingest;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.stream.Scd2ChangeLog;
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
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@link SparkCorrections} works out in Spark what {@link DriverCorrections} reads on the driver, by the core's rules:
 * over generated rows its plans give what the rules give: the window of an event and when it is final, the first
 * occurrence of an event (collisions on every sort key, nulls, -0.0 and NaN, strings Java and Spark order apart), the
 * late changes the log lacks.
 */
class SparkCorrectionsPropertyTest {
  private static final Column TS = Column.of("ts", Type.TIMESTAMP);
  private static final Column ID = Column.of("id", Type.BIGINT);
  private final SparkSession spark = LocalSpark.get();

  private Dataset<Row> frame(List<List<Object>> rows, Schema schema) {
    return spark.createDataFrame(SparkRows.rows(rows), SparkRows.struct(schema));
  }

  @Test
  void theWindowOfAnEventAndWhenItIsFinalAreTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(11);
    for (Duration size : List.of(Duration.ofMinutes(5), Duration.ofSeconds(7), Duration.ofHours(1))) {
      Windows windows = new Windows(size);
      Instant watermark = Instant.parse("2026-01-01T00:00:00Z").plusMillis(rng.nextLong(-7_200_000, 7_200_000));
      List<List<Object>> rows = new ArrayList<>();
      Map<Long, Instant> starts = new HashMap<>();
      Map<Long, Boolean> isFinal = new HashMap<>();
      for (long i = 0; i < 2_000; i++) {
        // microsecond times around the watermark, some before the epoch
        long micros = i % 10 == 0 ? rng.nextLong(-86_400_000_000L, 0)
            : 1_767_225_600_000_000L + rng.nextLong(-10_800_000_000L, 10_800_000_000L);
        Instant ts = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
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
      for (Row r : bySpark) {
        long id = r.getLong(0);
        assertThat(r.getTimestamp(2).toInstant()).as("the window of %s (%s)", r.get(1), size).isEqualTo(starts.get(id));
        assertThat(r.getBoolean(3)).as("%s final under %s", r.get(2), watermark).isEqualTo(isFinal.get(id));
      }
    }
  }

  @Test
  void theFirstOccurrenceIsTheCoresOrder() {
    SplittableRandom rng = new SplittableRandom(5);
    String[] files = {"s3a://l/events/arrival=0001/a.jsonl", "s3a://l/events/arrival=0001/\u00e9.jsonl",
        "s3a://l/events/arrival=0001/\uff21.jsonl", "s3a://l/events/arrival=0001/\ud83d\ude00.jsonl", null};
    String[] companies = {"c1", "C1", "\ud83d\ude00", null};
    Double[] amounts = {1.0, -0.0, 0.0, Double.NaN, null, -1.5};
    List<RawEvent> all = new ArrayList<>();
    for (int id = 0; id < 400; id++) {
      for (int k = rng.nextInt(1, 7); k > 0; k--) {
        Instant ts = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(rng.nextInt(3));
        all.add(new RawEvent(new Event(id, companies[rng.nextInt(companies.length)],
            amounts[rng.nextInt(amounts.length)], ts), rng.nextInt(4) == 0 ? null : (long) rng.nextInt(3),
            files[rng.nextInt(files.length)], rng.nextInt(5) == 0 ? null : ts.plusSeconds(rng.nextInt(2))));
      }
    }
    Map<Integer, RawEvent> first = new HashMap<>();
    all.forEach(e -> first.merge(e.event().eventId(), e,
        (a, b) -> CorrectionRules.FIRST_OCCURRENCE.compare(a, b) <= 0 ? a : b));
    Schema raw = Events.FEED.columns().plus(Ingest.BATCH_ID, Ingest.SOURCE_FILE, Ingest.INGEST_TS);
    List<List<Object>> rows = all.stream().map(e -> {
      List<Object> v = new ArrayList<>(e.event().values());
      v.addAll(Arrays.asList(e.batchId(), e.sourceFile(), e.ingestTs()));
      return v;
    }).toList();
    Dataset<Row> firstInSpark = frame(rows, raw).withColumn("rank", row_number().over(SparkCorrections
        .firstOccurrence())).where(col("rank").equalTo(lit(1))).drop("rank");
    Set<List<Object>> bySpark = new HashSet<>();
    firstInSpark.collectAsList().forEach(r -> bySpark.add(comparable(SparkRows.values(r))));
    Set<List<Object>> byRule = new HashSet<>();
    first.values().forEach(e -> {
      List<Object> v = new ArrayList<>(e.event().values());
      v.addAll(Arrays.asList(e.batchId(), e.sourceFile(), e.ingestTs()));
      byRule.add(comparable(v));
    });
    assertThat(bySpark).isEqualTo(byRule).hasSize(400);
  }

  /** -0.0 and 0.0 are one in Spark's order: two rows alike but for that sign are either the first. */
  private static List<Object> comparable(List<Object> values) {
    return values.stream().map(v -> v instanceof Double d && d == 0.0 ? (Object) 0.0 : v).toList();
  }

  @Test
  void theLateChangesAreTheCoresRule() {
    SplittableRandom rng = new SplittableRandom(3);
    String[] names = {"Acme", null, "\ud83d\ude00"};
    Boolean[] deleted = {false, true, null};
    List<List<Object>> raw = new ArrayList<>();
    List<CompanyChange> candidates = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      List<Object> v = Arrays.asList("c" + rng.nextInt(20), names[rng.nextInt(names.length)],
          names[rng.nextInt(names.length)], Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(30)),
          deleted[rng.nextInt(deleted.length)]);
      raw.add(v);
      candidates.add(new CompanyChange((String) v.get(0), (String) v.get(1), (String) v.get(2), (Instant) v.get(3),
          Boolean.TRUE.equals(v.get(4))));
    }
    Instant watermark = Instant.parse("2026-01-01T00:20:00Z");
    List<CompanyChange> logged = candidates.stream().filter(c -> c.companyId().hashCode() % 3 == 0).distinct()
        .toList();
    Set<List<Object>> byRule = new HashSet<>();
    CorrectionRules.lateChanges(candidates, watermark, logged).forEach(c -> byRule.add(c.values()));
    Dataset<Row> late = Scd2ChangeLog.unlogged(SparkCorrections.finalChanges(frame(raw,
        CompanyChanges.FEED.columns()), watermark), frame(logged.stream().map(CompanyChange::values).toList(),
        CompanyChanges.FEED.columns()));
    Set<List<Object>> bySpark = new HashSet<>();
    late.collectAsList().forEach(r -> bySpark.add(SparkRows.values(r)));
    assertThat(late.count()).as("once each").isEqualTo(bySpark.size());
    assertThat(bySpark).isEqualTo(byRule).isNotEmpty();
  }
}
