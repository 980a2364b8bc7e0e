package io.tidemark.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AuditCheckTest {
  /** A failed check names what it found, never what a pass would say. */
  @Test
  void aFailureNamesWhatItFoundNotThePassingText() {
    AuditCheck c = AuditCheck.of("counts: one row per (company, window)", "facts.event_counts",
        List.of("c1 at 2026-01-01 00:05:00 holds 2 rows"), "2 corrected window(s) hold one row each");
    assertThat(c.passed()).isFalse();
    assertThat(c.detail()).isEqualTo("1 violation(s): c1 at 2026-01-01 00:05:00 holds 2 rows")
        .doesNotContain("hold one row each");
  }

  @Test
  void aPassSaysWhatHeld() {
    AuditCheck c = AuditCheck.of("counts: n >= 1", "facts.event_counts", List.of(), "every corrected window has n >= 1");
    assertThat(c.passed()).isTrue();
    assertThat(c.toString()).isEqualTo("PASS counts: n >= 1 on facts.event_counts: every corrected window has n >= 1");
  }

  /** Many found: the first few named, and how many more. */
  @Test
  void manyFoundAreCountedAndTheFirstNamed() {
    List<String> found = IntStream.range(0, 12).mapToObj(i -> "event " + i + " holds 2 rows").toList();
    AuditCheck c = AuditCheck.of("events: one row per event_id", "facts.events", found, "unused");
    assertThat(c.detail()).startsWith("12 violation(s): event 0 holds 2 rows; event 1 holds 2 rows")
        .endsWith("event 4 holds 2 rows; and 7 more");
  }

}
