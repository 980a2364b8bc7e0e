package io.tidemark.restate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.config.ConfigException;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlanTest {
  @Test
  void aPlanReadsBackFromItsCommitProperties() {
    Marks previous = new Marks(Optional.of(11L), Optional.empty(), Optional.of(Instant.parse("2026-01-01T00:10:00Z")),
        Optional.empty(), Optional.empty());
    Marks now = new Marks(Optional.of(12L), Optional.of(7L), Optional.of(Instant.parse("2026-01-01T00:20:00Z")),
        Optional.of(Instant.parse("2026-01-01T00:00:00Z")), Optional.empty());
    Plan plan = new Plan("42", "p-restate-42-2", 2, "abc", "base1", Optional.of(99L), previous, now, 3, 4, 1);

    Plan back = Plan.of("abc", plan.properties());

    assertThat(back).isEqualTo(plan);
    assertThat(plan.properties()).containsEntry("tidemark.stage", "plan").containsEntry("tidemark.run-id", "42")
        .containsEntry("tidemark.raw-events-snapshot", "12").containsEntry("tidemark.previous.raw-events-snapshot", "11");
    assertThat(plan.summary()).isEqualTo("planned: 3 window(s), 4 event(s), 1 company change(s)");
    assertThat(new Plan("42", "b", 1, "h", "base1", Optional.empty(), Marks.none(), now, 0, 0, 0).summary()).isEqualTo("nothing to restate");
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
