package io.tidemark.core;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.CorrectionRules.RawEvent;
import io.tidemark.core.CorrectionRules.WindowKey;
import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CorrectionRulesTest {
  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  @Test
  void onlyFinalWindowsOfEventsWithACompanyAreCandidates() {
    Windows windows = new Windows(Duration.ofMinutes(5));
    List<Event> events = List.of(new Event(1, "c1", 1.0, at(2)), new Event(2, null, 1.0, at(3)),
        new Event(3, "c1", 1.0, at(7)), new Event(4, "c2", 1.0, at(12)));
    assertThat(CorrectionRules.finalWindows(events, windows, at(10))).containsExactly(new WindowKey("c1", at(0)),
        new WindowKey("c1", at(5)));
  }

  @Test
  void aWindowIsInsertedWhenTheStreamNeverWroteItAndRecountedWhereItsCountDiffers() {
    WindowKey never = new WindowKey("c1", at(0));
    WindowKey wrong = new WindowKey("c2", at(0));
    WindowKey right = new WindowKey("c3", at(0));
    Map<WindowKey, Long> fresh = Map.of(never, 2L, wrong, 3L, right, 4L);
    Map<WindowKey, List<Long>> held = Map.of(wrong, List.of(3L, 1L), right, List.of(4L));
    assertThat(CorrectionRules.windowFixes(fresh, held)).containsExactly(new WindowFix("c1", at(0), null, 2),
        new WindowFix("c2", at(0), 1L, 3));
  }

  @Test
  void theFirstOccurrenceIsTheEarliestArrivalThenTheContentInSparksOrder() {
    RawEvent late = new RawEvent(new Event(1, "c1", 1.0, at(0)), 2L, "a", at(9));
    RawEvent early = new RawEvent(new Event(1, "c9", 9.0, at(5)), 1L, "b", at(8));
    RawEvent noBatch = new RawEvent(new Event(1, "c9", 9.0, at(5)), null, "z", at(8));
    List<RawEvent> all = new ArrayList<>(List.of(late, early, noBatch));
    all.sort(CorrectionRules.FIRST_OCCURRENCE);
    assertThat(all).as("nulls first, as Spark's ascending order").containsExactly(noBatch, early, late);
    RawEvent negativeZero = new RawEvent(new Event(1, "c1", -0.0, at(1)), 1L, "a", at(8));
    RawEvent zero = new RawEvent(new Event(1, "c1", 0.0, at(0)), 1L, "a", at(8));
    assertThat(CorrectionRules.FIRST_OCCURRENCE.compare(zero, negativeZero)).as("-0.0 equals 0.0: the event time "
        + "settles it").isNegative();
  }

  @Test
  void anEventIsCorrectedUnlessTheTableHoldsExactlyItsFirstOccurrenceOnce() {
    Event first = new Event(1, "c1", 1.0, at(0));
    Map<Integer, RawEvent> firsts = new TreeMap<>(Map.of(
        1, new RawEvent(first, 1L, "a", at(0)),
        2, new RawEvent(new Event(2, "c1", 1.0, at(0)), 1L, "a", at(0)),
        3, new RawEvent(new Event(3, "c1", 1.0, at(0)), 1L, "a", at(0)),
        4, new RawEvent(new Event(4, "c1", 1.0, at(20)), 1L, "a", at(0))));
    Map<Integer, List<Event>> held = new HashMap<>();
    held.put(1, List.of(first));
    held.put(2, List.of(new Event(2, "c1", 1.0, at(0)), new Event(2, "c1", 1.0, at(0))));
    held.put(3, List.of(new Event(3, "c2", 1.0, at(0))));
    assertThat(CorrectionRules.eventFixes(firsts, held, at(10))).containsExactly(
        new EventFix(2, "c1", 1.0, at(0), 2), new EventFix(3, "c1", 1.0, at(0), 1));
  }

  @Test
  void aLateChangeIsOneFinalUnderTheWatermarkThatTheLogLacks() {
    CompanyChange logged = CompanyChange.set("c1", "Acme", "gold", at(0));
    CompanyChange late = CompanyChange.set("c1", "Bolt", "gold", at(5));
    CompanyChange notFinal = CompanyChange.set("c2", "Cog", "gold", at(30));
    CompanyChange delete = new CompanyChange("c0", "ignored", "ignored", at(1), true);
    assertThat(CorrectionRules.lateChanges(List.of(notFinal, late, logged, delete, late), at(10), List.of(logged)))
        .containsExactly(CompanyChange.delete("c0", at(1)), late);
  }

  @Test
  void aPlanReadBackIsTheCorrectionsItWasWrittenFrom() {
    CorrectionSet c = new CorrectionSet(List.of(new WindowFix("c1", at(0), null, 2), new WindowFix("c1", at(5), 1L, 3)),
        List.of(new EventFix(7, null, null, at(3), 0)), List.of(CompanyChange.delete("c1", at(4))));
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1);
    assertThat(rows).hasSize(4).allMatch(r -> r.size() == RestatementRecords.PLAN.size());
    List<Fields> read = rows.stream().<Fields>map(r -> name -> r.get(RestatementRecords.PLAN.index(name))).toList();
    assertThat(CorrectionPlan.read(read)).isEqualTo(c);
    assertThat(CorrectionLog.rows(c, "run", "restate-run", new CorrectionLog.Targets("counts", "events", "companies"),
        at(9))).extracting(r -> r.get(RestatementRecords.LOG.index(RestatementRecords.CORRECTION)))
        .containsExactly(CorrectionLog.WINDOW_INSERT, CorrectionLog.WINDOW_RECOUNT, CorrectionLog.EVENT_ADDED,
            CorrectionLog.LATE_CHANGE);
  }

  @Test
  void aPlanCarriesTheValuesOfPromotedFieldsEachReadBackInItsType() {
    Column region = Column.of("region", Type.STRING);
    Column score = Column.of("score", Type.DOUBLE);
    Column seen = Column.of("seen_at", Type.TIMESTAMP);
    Column big = Column.of("big", Type.BIGINT);
    Column vip = Column.of("vip", Type.BOOLEAN);
    Column rank = Column.of("rank", Type.INT);
    CorrectionPlan.Promoted promoted = new CorrectionPlan.Promoted(List.of(region, score, seen, big),
        List.of(vip, rank));
    Instant micros = Instant.parse("2026-01-01T00:00:00.123456Z");
    CorrectionSet c = new CorrectionSet(List.of(new WindowFix("c1", at(0), null, 2)),
        List.of(new EventFix(7, "c1", 1.5, at(3), 0, java.util.Arrays.asList("e\"u\n", 0.1 + 0.2, micros,
                Long.MAX_VALUE)),
            new EventFix(8, null, null, at(3), 2, java.util.Arrays.asList(null, Double.NaN, null, -1L))),
        List.of(CompanyChange.set("c1", "Acme", "gold", at(4), List.of(true, Integer.MIN_VALUE)),
            new CompanyChange("c2", null, null, at(4), true, java.util.Arrays.asList(false, 3))));
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1, promoted);
    assertThat(rows).allMatch(r -> r.size() == RestatementRecords.PLAN.size());
    List<Fields> read = rows.stream().<Fields>map(r -> name -> r.get(RestatementRecords.PLAN.index(name))).toList();
    CorrectionSet back = CorrectionPlan.read(read, promoted);
    assertThat(back).isEqualTo(c);
    assertThat(back.events().get(0).values()).containsExactly(7, "c1", 1.5, at(3), "e\"u\n", 0.1 + 0.2, micros,
        Long.MAX_VALUE);
    assertThat(back.changes().get(1).more()).as("a delete carries no attributes").containsExactly(null, null);
    assertThat(CorrectionPlan.read(read)).as("read without the promoted fields").isNotEqualTo(c);
  }

  @Test
  void aPlanRowWithoutAPromotedFieldsValueIsAnErrorNotANull() {
    CorrectionSet c = new CorrectionSet(List.of(), List.of(new EventFix(7, "c1", 1.5, at(3), 0)), List.of());
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1);
    List<Fields> read = rows.stream().<Fields>map(r -> name -> r.get(RestatementRecords.PLAN.index(name))).toList();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CorrectionPlan.read(read, new CorrectionPlan.Promoted(
            List.of(Column.of("region", Type.STRING)), List.of())))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no value for the promoted field region");
  }

  @Test
  void thePromotedAttributesDeclareTheCompaniesAsTheirArchiveDoes() {
    Column region = Column.of("region", Type.STRING);
    Schema archive = Seed.CHANGES.columns().plus(Ingest.SCHEMA).plus(Rescued.DATA, region);
    assertThat(new CorrectionPlan.Promoted(List.of(), List.of(region)).companies())
        .isEqualTo(Seed.CHANGES.declaredBy(archive));
    assertThat(CorrectionPlan.Promoted.NONE.companies()).isEqualTo(Seed.CHANGES);
  }

  @Test
  void theFirstOccurrenceHandsItsPromotedValuesToItsFix() {
    RawEvent first = new RawEvent(new Event(1, "c1", 1.0, at(0)), 1L, "a", at(8), List.of("eu"));
    assertThat(CorrectionRules.eventFixes(Map.of(1, first), Map.of(), at(10)))
        .containsExactly(new EventFix(1, "c1", 1.0, at(0), 0, List.of("eu")));
  }
}
