package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class Scd2HistoryTest {
  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  private static CompanyVersion version(String company, String name, int from, Integer to) {
    return new CompanyVersion(company, name, "gold", at(from), to == null ? null : at(to), to == null);
  }

  @Test
  void aChangeClosesTheOpenVersionAndARepeatDoesNothing() {
    List<CompanyVersion> history = Scd2History.rebuild(List.of(CompanyChange.set("c1", "Acme", "gold", at(0)),
        CompanyChange.set("c1", "Acme", "gold", at(5)), CompanyChange.set("c1", "Bolt", "gold", at(10))));
    assertThat(history).containsExactly(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, null));
  }

  @Test
  void aLateChangeSplitsTheVersionItFallsInAndADeleteLeavesAGap() {
    List<CompanyVersion> history = Scd2History.rebuild(List.of(CompanyChange.set("c1", "Acme", "gold", at(0)),
        CompanyChange.delete("c1", at(20)), CompanyChange.set("c1", "Acme", "gold", at(30)),
        CompanyChange.set("c1", "Bolt", "gold", at(10))));
    assertThat(history).containsExactly(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, 20),
        version("c1", "Acme", 30, null));
  }

  @Test
  void atOneInstantADeleteWinsElseTheGreaterNameInSparksOrder() {
    assertThat(Scd2History.rebuild(List.of(CompanyChange.set("c1", "Acme", "gold", at(0)),
        CompanyChange.delete("c1", at(0))))).isEmpty();
    // U+FF21 sorts after U+1F600's surrogates in UTF-16, before them in UTF-8 (code points): Spark's order wins
    List<CompanyVersion> settled = Scd2History.rebuild(List.of(CompanyChange.set("c1", "\uff21", "gold", at(0)),
        CompanyChange.set("c1", "\ud83d\ude00", "gold", at(0)), CompanyChange.set("c1", null, "gold", at(0))));
    assertThat(settled).extracting(CompanyVersion::name).containsExactly("\ud83d\ude00");
  }

  @Test
  void theDifferenceUpsertsWhatTheHistoryHasAndRemovesVersionsItLacks() {
    List<CompanyVersion> history = List.of(version("c1", "Acme", 0, 10), version("c1", "Bolt", 10, null));
    List<CompanyVersion> current = List.of(version("c1", "Acme", 0, null), version("c1", "Cale", 5, null));
    assertThat(Scd2Difference.of(history, current)).containsExactly(
        new Scd2Difference.Change(version("c1", "Acme", 0, 10), true),
        new Scd2Difference.Change(version("c1", "Bolt", 10, null), true),
        new Scd2Difference.Change(version("c1", "Cale", 5, null), false));
    assertThat(Scd2Difference.of(history, history)).as("nothing to do for a dimension equal to its log").isEmpty();
  }
}
