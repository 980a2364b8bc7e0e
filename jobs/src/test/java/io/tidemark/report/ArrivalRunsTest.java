package io.tidemark.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.stream.BatchRecord;
import io.tidemark.stream.RunReport;
import io.tidemark.testing.Seed;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

class ArrivalRunsTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final TableName COUNTS = Seed.COUNTS_AGGREGATE.table();

  /** Batch {@code batch} of windowed-counts in run {@code run}, reading {@code arrival} (null: nothing new). */
  private static BatchRecord counts(String run, long batch, Integer arrival, long input, long late, long written,
                                    boolean recovered) {
    Map<String, Long> rows = new LinkedHashMap<>();
    rows.put(COUNTS.toString(), written);
    return new BatchRecord(Seed.WINDOWED_COUNTS, "q", run, batch, arrival, arrival == null ? null : arrival.toString(),
        T0.plusSeconds(batch * 10), T0.plusSeconds(batch * 10 + 2), recovered ? null : input, rows, 0, null,
        recovered ? null : late, "partial count", recovered ? null : 0L, recovered ? null : 3L, null,
        T0.plusSeconds(batch), T0.plusSeconds(batch + 1), null, null, recovered ? null : 2000L, 100L, 1500L, 400L,
        Map.of(), List.of(), recovered);
  }

  @Test
  void aRunBelongsToTheNewestArrivalItsBatchesRead() {
    List<BatchRecord> records = List.of(
        counts("r1", 0, 1, 9, 0, 0, false),
        counts("r1", 1, null, 0, 0, 0, false),
        counts("r2", 2, 2, 5, 0, 0, false),
        // the trailing batch of arrival 2's run, run again on its own after a crash
        counts("r3", 3, null, 0, 0, 5, false),
        counts(null, 4, 3, 0, 0, 0, true),
        counts("r4", 5, 3, 3, 2, 0, false));
    SortedMap<Integer, List<RunReport>> byArrival = ArrivalRuns.of(records, Seed.PIPELINE.streamNames());
    assertThat(byArrival.keySet()).containsExactly(1, 2, 3);
    assertThat(byArrival.get(1)).singleElement().satisfies(r -> {
      assertThat(r.batches()).isEqualTo(2);
      assertThat(r.inputRows()).isEqualTo(9);
      assertThat(r.seconds()).isEqualTo(4.0);
    });
    assertThat(byArrival.get(2)).singleElement().satisfies(r -> {
      assertThat(r.batches()).as("arrival 2's run and the run that only finished its trailing batch").isEqualTo(2);
      assertThat(r.written(COUNTS)).isEqualTo(5);
    });
    assertThat(byArrival.get(3)).as("a recovered batch sums as what it knows").singleElement().satisfies(r -> {
      assertThat(r.batches()).isEqualTo(2);
      assertThat(r.inputRows()).isEqualTo(3);
      assertThat(r.lateRowsDropped()).isEqualTo(2);
      assertThat(r.summary()).isEqualTo("windowed-counts: 2 batch(es), 3 lines read, 0 row(s) into "
          + "facts.event_counts, 2 late partial count(s) dropped, watermark 2026-01-01T00:00:05Z (2.0 s)");
    });
  }

  @Test
  void anArrivalsRunsAreInThePipelinesOrderOfStreams() {
    BatchRecord c = counts("r1", 0, 1, 9, 0, 0, false);
    BatchRecord raw = new BatchRecord(Seed.RAW, "q", "r0", 0, 1, "1", T0.plusSeconds(100), T0.plusSeconds(101), 9L,
        Map.of(Seed.EVENTS_FEED.raw().table().toString(), 9L), 0, 0L, null, null, null, null, null, null, null, null,
        null, 1000L, 10L, 900L, 90L, Map.of(), List.of(), false);
    assertThat(ArrivalRuns.of(List.of(c, raw), Seed.PIPELINE.streamNames()).get(1)).extracting(RunReport::stream)
        .as("the raw archive ran after the counts here, and still comes first").containsExactly(Seed.RAW,
            Seed.WINDOWED_COUNTS);
  }
}
