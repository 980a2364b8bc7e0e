package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The publish gate's rules over the expectations record: sums per arrival, bounds, and releases by a correction. */
class ExpectationTallyTest {
  private static ExpectationTally.Found found(int arrival, String kind, long rows, Long violations, String... keys) {
    return new ExpectationTally.Found("events", arrival, "e", 1, kind, "fail", "r", rows, violations, List.of(keys));
  }

  @Test
  void batchesAreSummedPerArrivalAndRowsOutsideTheLayoutLeftOut() {
    List<ExpectationTally.Count> counts = ExpectationTally.sum(List.of(found(1, "condition", 10, 1L, "event_id=3"),
        found(1, "condition", 5, 2L, "event_id=1", "event_id=9"), found(2, "condition", 4, 0L),
        new ExpectationTally.Found("events", null, "e", 1, "condition", "fail", "r", 7, 7L, List.of())));
    assertThat(counts).hasSize(2);
    assertThat(counts.get(0).rows()).isEqualTo(15);
    assertThat(counts.get(0).violations()).isEqualTo(3);
    assertThat(counts.get(0).samples()).containsExactly("event_id=1", "event_id=3", "event_id=9");
    assertThat(counts.get(0).say()).isEqualTo("events arrival 1: e (fail, v1) 3 of 15 row(s), e.g. event_id=1; "
        + "event_id=3");
  }

  @Test
  void boundsHoldAsDeclared() {
    ExpectationTally.Count none = ExpectationTally.sum(List.of(found(1, "rows", 0, null))).get(0);
    assertThat(ExpectationTally.holds(none, 1L, null, null)).isFalse();
    assertThat(ExpectationTally.holds(none, null, 10L, null)).isTrue();
    ExpectationTally.Count nulls = ExpectationTally.sum(List.of(found(1, "nulls", 100, 5L))).get(0);
    assertThat(ExpectationTally.holds(nulls, null, null, 0.05)).as("5 of 100 at most 5%").isTrue();
    assertThat(ExpectationTally.holds(nulls, null, null, 0.049)).isFalse();
    ExpectationTally.Count empty = ExpectationTally.sum(List.of(found(1, "dropped", 0, 0L))).get(0);
    assertThat(ExpectationTally.holds(empty, null, null, 0.0)).as("no rows, no share").isTrue();
    ExpectationTally.Count failed = ExpectationTally.sum(List.of(found(1, "condition", 3, 1L))).get(0);
    assertThat(ExpectationTally.holds(failed, null, null, null)).isFalse();
  }

  @Test
  void aHeldKeyIsReleasedOnlyByALaterArrivalThatKeptIt() {
    Set<String> held = Set.of("company_id=c5", "company_id=c6");
    assertThat(ExpectationTally.unreleased(2, held, Map.of("company_id=c5", 3))).containsExactly("company_id=c6");
    assertThat(ExpectationTally.unreleased(2, held, Map.of("company_id=c5", 3, "company_id=c6", 2)))
        .as("the same arrival is no correction").containsExactly("company_id=c6");
    assertThat(ExpectationTally.unreleased(2, held, Map.of("company_id=c5", 4, "company_id=c6", 3))).isEmpty();
    assertThat(ExpectationTally.key(List.of("order_id", "line_no"), java.util.Arrays.asList("o1", null)))
        .isEqualTo("order_id=o1, line_no=null");
  }
}
