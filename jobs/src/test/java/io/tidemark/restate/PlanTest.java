package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.config.ConfigException;
import io.tidemark.testing.Seed;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlanTest {
  private static final String RAW_EVENTS = Seed.EVENTS_FEED.raw().table().toString();
  private static final String RAW_CHANGES = Seed.COMPANIES_FEED.raw().table().toString();

  @Test
  void aPlanReadsBackFromItsCommitProperties() {
    Marks previous = new Marks(Map.of(RAW_EVENTS, 11L),
        Map.of(Seed.WINDOWED_COUNTS, Instant.parse("2026-01-01T00:10:00Z")));
    Marks now = new Marks(Map.of(RAW_EVENTS, 12L, RAW_CHANGES, 7L),
        Map.of(Seed.WINDOWED_COUNTS, Instant.parse("2026-01-01T00:20:00Z"),
            Seed.DEDUP, Instant.parse("2026-01-01T00:00:00Z")));
    Plan plan = new Plan("42", "p-restate-42-2", 2, "abc", "base1", Optional.of(99L), previous, now, 3, 4, 1);

    Plan back = Plan.of("abc", plan.properties());

    assertThat(back).isEqualTo(plan);
    assertThat(plan.properties()).containsEntry("tidemark.stage", "plan").containsEntry("tidemark.run-id", "42")
        .containsEntry("tidemark.mark.snapshot.raw.events", "12")
        .containsEntry("tidemark.previous.mark.snapshot.raw.events", "11")
        .containsEntry("tidemark.mark.watermark.windowed-counts", "2026-01-01T00:20:00Z")
        .containsEntry("tidemark.records-planned", "4")
        .doesNotContainKey("tidemark.mark.watermark.scd2");
    assertThat(back.now().snapshot(RAW_CHANGES)).contains(7L);
    assertThat(back.previous().snapshot(RAW_CHANGES)).as("a mark the previous run lacks").isEmpty();
    assertThat(back.now().watermark(Seed.SCD2)).isEmpty();
    assertThat(plan.summary()).isEqualTo("planned: 3 window(s), 4 record(s), 1 dimension change(s)");
    assertThat(new Plan("42", "b", 1, "h", "base1", Optional.empty(), Marks.none(), now, 0, 0, 0).summary())
        .isEqualTo("nothing to restate");
  }

  @Test
  void runIdsNameNessieReferences() {
    assertThat(RunId.check("manual__2026-01-01T00.00.00")).isEqualTo("manual__2026-01-01T00.00.00");
    assertThat(RunId.generate()).matches("\\d{8}T\\d{6}Z-[0-9a-f]{4}");
    for (String bad : new String[] {"", "-x", "a b", "a/b", "a#b", "x".repeat(82)}) {
      assertThatThrownBy(() -> RunId.check(bad)).as(bad).isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("--run-id: ");
    }
  }
}
