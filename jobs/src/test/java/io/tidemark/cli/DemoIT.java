package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.TestStack;
import org.junit.jupiter.api.Test;

/** The README's first command, on the shared stack: every step shows, and a second run changes nothing. */
class DemoIT {
  private final TestStack stack = TestStack.get();

  @Test
  void demoRunsEveryStepAndIsSafeToRunAgain() {
    Cli.Result first = Cli.run(stack.env(), "demo");
    assertThat(first.exitCode()).as("%s", first).isZero();
    assertThat(first.out())
        .contains("== 1. services", "== 2. bootstrap", "== 3. arrivals", "== 4. what is in the landing",
            "== 5. the tables on branch main", "== where to look")
        .contains("window [2026-01-01 00:00,00:05) c1 finalized: n=4",
            "late event 7 (c1 at 2026-01-01 00:03:00) dropped by the counts",
            "dedup: 2 batch(es), 9 lines read, 8 row(s) into facts.events, 1 duplicate(s) dropped",
            "company dimension (SCD2) now:", "== 6. restatement",
            "window 2026-01-01T00:00:00Z c1: n 4 -> 6", "window 2026-01-01T00:05:00Z c3: n (none) -> 1",
            "PASS counts: DuckDB recount from the raw archive", "lateness for the windowed counts")
        .containsPattern("published to main \\([0-9a-f]+\\), tagged restated-")
        .containsPattern("\\| c1\\s+\\| Acme Corp \\| gold\\s+\\| 01-01 00:30 \\| 01-01 00:45 \\| false")
        .contains("/events/arrival=0003/seed-counts.jsonl", "/companies/arrival=0004/seed-scd2.jsonl")
        .containsPattern("facts\\.event_counts\\s+\\d+ rows")
        .contains("Nessie UI (branches, commits, tables): " + stack.endpoints().nessieUi());
    assertThat(first.errLines()).as("nothing on stderr").isEmpty();

    String mainBefore = stack.nessie().hash("main");
    Cli.Result second = Cli.run(stack.env(), "demo");
    assertThat(second.exitCode()).as("%s", second).isZero();
    assertThat(second.out()).contains("bootstrap: nothing to do").doesNotContain("  landed")
        .contains("windowed-counts: 0 batch(es), 0 lines read")
        .contains("nothing to restate: no late data since the last restatement; no branch, no commit");
    assertThat(second.out().lines().filter(l -> l.contains("already there, unchanged")).count())
        .as("every seed file already landed").isEqualTo(10);
    assertThat(stack.nessie().hash("main")).isEqualTo(mainBefore);
  }
}
