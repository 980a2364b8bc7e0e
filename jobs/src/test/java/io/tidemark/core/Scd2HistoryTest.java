package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Seed;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class Scd2HistoryTest {
  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  private static Version version(String company, String name, int from, Integer to) {
    return Seed.version(company, name, "gold", at(from), to == null ? null : at(to), to == null);
  }

  private static Change set(String company, String name, int minute) {
    return Seed.change(company, name, "gold", at(minute));
  }

  @Test
  void aChangeClosesTheOpenVersionAndARepeatDoesNothing() {
    List<Version> history = Scd2History.rebuild(List.of(set("c1", "Acme", 0), set("c1", "Acme", 5),
        set("c1", "Bolt", 10)));
    assertThat(history).containsExactly(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, null));
  }

  @Test
  void aLateChangeSplitsTheVersionItFallsInAndADeleteLeavesAGap() {
    List<Version> history = Scd2History.rebuild(List.of(set("c1", "Acme", 0), Seed.delete("c1", at(20)),
        set("c1", "Acme", 30), set("c1", "Bolt", 10)));
    assertThat(history).containsExactly(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, 20),
        version("c1", "Acme", 30, null));
  }

  @Test
  void atOneInstantADeleteWinsElseTheGreaterNameInSparksOrder() {
    assertThat(Scd2History.rebuild(List.of(set("c1", "Acme", 0), Seed.delete("c1", at(0))))).isEmpty();
    // U+FF21 sorts after U+1F600's surrogates in UTF-16, before them in UTF-8 (code points): Spark's order wins
    List<Version> settled = Scd2History.rebuild(List.of(set("c1", "\uff21", 0), set("c1", "\ud83d\ude00", 0),
        set("c1", null, 0)));
    assertThat(settled).extracting(v -> v.attributes().get(0)).containsExactly("\ud83d\ude00");
  }

  @Test
  void aCompositeKeysChangesMakeItsOwnHistoryAndTheAttributesSettleATieInOrder() {
    // keys that share their first column are kept apart; at one instant the first attribute decides, then the next
    List<Object> a = Arrays.asList("s1", 1);
    List<Object> b = Arrays.asList("s1", 2);
    BigDecimal small = new BigDecimal("1.50");
    BigDecimal large = new BigDecimal("10.00");
    List<Version> history = Scd2History.rebuild(List.of(
        Change.set(a, at(0), Arrays.asList("x", small)), Change.set(b, at(0), Arrays.asList("x", small)),
        Change.set(a, at(5), Arrays.asList("x", large)), Change.set(a, at(5), Arrays.asList("x", small)),
        Change.set(a, at(5), Arrays.asList(null, large)), Change.set(b, at(10), Arrays.asList("x", small))));
    assertThat(history).containsExactly(
        new Version(a, Arrays.asList("x", small), at(0), at(5), false),
        new Version(a, Arrays.asList("x", large), at(5), null, true),
        new Version(b, Arrays.asList("x", small), at(0), null, true));
  }

  @Test
  void theDifferenceUpsertsWhatTheHistoryHasAndRemovesVersionsItLacks() {
    List<Version> history = List.of(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, null));
    List<Version> current = List.of(version("c1", "Acme", 0, null), version("c1", "Cale", 5, null));
    assertThat(Scd2Difference.of(history, current)).containsExactly(
        new Scd2Difference.Step(version("c1", "Acme", 0, 10), true),
        new Scd2Difference.Step(version("c1", "Bolt", 10, null), true),
        new Scd2Difference.Step(version("c1", "Cale", 5, null), false));
    assertThat(Scd2Difference.of(history, history)).as("nothing to do for a dimension equal to its log").isEmpty();
  }
}
