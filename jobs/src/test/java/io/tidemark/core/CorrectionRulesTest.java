package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.core.CorrectionSet.ChangeFix;
import io.tidemark.core.CorrectionSet.RecordFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.testing.Seed;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CorrectionRulesTest {
  private static final String COUNTS = Seed.WINDOWED_COUNTS;
  private static final String EVENTS = Seed.EVENTS.name();
  private static final String COMPANIES = Seed.COMPANIES.name();

  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  private static List<Object> event(int id, String company, Double amount, Instant at) {
    return Seed.event(id, company, amount, at);
  }

  /** A row of the feed's columns. */
  private static Fields row(FeedSchema feed, List<Object> values) {
    return name -> values.get(feed.columns().index(name));
  }

  private static Occurrence occurrence(List<Object> values, Long batch, String file, Instant ingested) {
    return new Occurrence(values, batch, file, ingested);
  }

  private static Aggregation.Key window(String company, Instant start) {
    return new Aggregation.Key(Arrays.asList(company), start);
  }

  @Test
  void onlyFinalWindowsOfEventsWithACompanyAreCandidates() {
    List<Fields> events = List.of(row(Seed.EVENTS, event(1, "c1", 1.0, at(2))),
        row(Seed.EVENTS, event(2, null, 1.0, at(3))), row(Seed.EVENTS, event(3, "c1", 1.0, at(7))),
        row(Seed.EVENTS, event(4, "c2", 1.0, at(12))));
    assertThat(CorrectionRules.finalWindows(events, Seed.COUNTS, Seed.EVENT_TS, at(10)))
        .containsExactly(window("c1", at(0)), window("c1", at(5)));
  }

  @Test
  void aWindowIsInsertedWhenTheStreamNeverWroteItAndRecountedWhereItsCountDiffers() {
    Aggregation.Key never = window("c1", at(0));
    Aggregation.Key wrong = window("c2", at(0));
    Aggregation.Key right = window("c3", at(0));
    Map<Aggregation.Key, List<Object>> fresh = Map.of(never, List.of(2L), wrong, List.of(3L), right, List.of(4L));
    Map<Aggregation.Key, List<List<Object>>> held = Map.of(wrong, List.of(List.of(3L), List.of(1L)),
        right, List.of(List.of(4L)));
    assertThat(CorrectionRules.windowFixes(COUNTS, Seed.COUNTS, fresh, held)).containsExactly(
        new WindowFix(COUNTS, List.of("c1"), at(0), null, List.of(2L)),
        new WindowFix(COUNTS, List.of("c2"), at(0), List.of(1L), List.of(3L)));
  }

  @Test
  void floatingMeasuresAreRecomputedOnlyBeyondARelativeOneInABillionAndDecimalsByValue() {
    Column price = Column.of("price", Type.decimal(12, 2));
    Column x = Column.of("x", Type.DOUBLE);
    Column g = Column.of("g", Type.STRING);
    Aggregation a = new Aggregation(new Windows(Duration.ofMinutes(7)), List.of(g),
        Column.of("w", Type.TIMESTAMP), List.of(new Measure("s", Measure.Function.SUM, x),
        new Measure("p", Measure.Function.SUM, price)));
    Aggregation.Key k = new Aggregation.Key(List.of("g1"), at(0));
    BigDecimal p = new BigDecimal("10.10");
    List<Object> fresh = List.of(0.1 + 0.2, p);
    assertThat(CorrectionRules.windowFixes("a", a, Map.of(k, fresh), Map.of(k, List.of(List.of(0.3,
        new BigDecimal("10.1")))))).as("a sum in another order; a decimal of equal value").isEmpty();
    assertThat(CorrectionRules.windowFixes("a", a, Map.of(k, fresh), Map.of(k, List.of(List.of(0.3 * (1 + 1e-8),
        p))))).hasSize(1);
    assertThat(CorrectionRules.windowFixes("a", a, Map.of(k, fresh), Map.of(k, List.of(List.of(0.1 + 0.2,
        new BigDecimal("10.11")))))).as("a decimal is exact").hasSize(1);
    assertThat(CorrectionRules.windowFixes("a", a, Map.of(k, List.of(Double.NaN, p)),
        Map.of(k, List.of(List.of(Double.NaN, p))))).as("NaN is NaN, as Spark has it").isEmpty();
    assertThat(CorrectionRules.windowFixes("a", a, Map.of(k, List.of(-0.0, p)),
        Map.of(k, List.of(List.of(0.0, p))))).as("-0.0 is 0.0").isEmpty();
  }

  @Test
  void theFirstOccurrenceIsTheEarliestArrivalThenTheContentInSparksOrder() {
    Occurrence late = occurrence(event(1, "c1", 1.0, at(0)), 2L, "a", at(9));
    Occurrence early = occurrence(event(1, "c9", 9.0, at(5)), 1L, "b", at(8));
    Occurrence noBatch = occurrence(event(1, "c9", 9.0, at(5)), null, "z", at(8));
    List<Occurrence> all = new ArrayList<>(List.of(late, early, noBatch));
    all.sort(Occurrence.firstFirst(Seed.EVENTS));
    assertThat(all).as("nulls first, as Spark's ascending order").containsExactly(noBatch, early, late);
    Occurrence negativeZero = occurrence(event(1, "c1", -0.0, at(1)), 1L, "a", at(8));
    Occurrence zero = occurrence(event(1, "c1", 0.0, at(0)), 1L, "a", at(8));
    assertThat(Occurrence.firstFirst(Seed.EVENTS).compare(zero, negativeZero)).as("-0.0 equals 0.0: the event time "
        + "settles it").isNegative();
    Occurrence emoji = occurrence(event(1, "\ud83d\ude00", 1.0, at(0)), 1L, "a", at(8));
    Occurrence fullWidth = occurrence(event(1, "\uff21", 1.0, at(0)), 1L, "a", at(8));
    assertThat(Occurrence.firstFirst(Seed.EVENTS).compare(fullWidth, emoji)).as("strings by code point, as Spark "
        + "orders them (UTF-16 sorts them the other way)").isNegative();
    assertThat(Occurrence.orderedBy(Seed.EVENTS)).as("every column but the key")
        .containsExactly(Seed.COMPANY_ID, Seed.AMOUNT, Seed.EVENT_TS);
  }

  @Test
  void anEventIsCorrectedUnlessTheTableHoldsExactlyItsFirstOccurrenceOnce() {
    List<Object> first = event(1, "c1", 1.0, at(0));
    Map<List<Object>, Occurrence> firsts = new TreeMap<>(SqlOrder.valuesAscendingNullsFirst());
    firsts.put(List.of(1), occurrence(first, 1L, "a", at(0)));
    firsts.put(List.of(2), occurrence(event(2, "c1", 1.0, at(0)), 1L, "a", at(0)));
    firsts.put(List.of(3), occurrence(event(3, "c1", 1.0, at(0)), 1L, "a", at(0)));
    firsts.put(List.of(4), occurrence(event(4, "c1", 1.0, at(20)), 1L, "a", at(0)));
    Map<List<Object>, List<List<Object>>> held = new HashMap<>();
    held.put(List.of(1), List.of(first));
    held.put(List.of(2), List.of(event(2, "c1", 1.0, at(0)), event(2, "c1", 1.0, at(0))));
    held.put(List.of(3), List.of(event(3, "c2", 1.0, at(0))));
    assertThat(CorrectionRules.recordFixes(Seed.EVENTS, firsts, held, at(10))).containsExactly(
        new RecordFix(EVENTS, List.of(2), event(2, "c1", 1.0, at(0)), 2),
        new RecordFix(EVENTS, List.of(3), event(3, "c1", 1.0, at(0)), 1));
  }

  @Test
  void aRecordOfACompositeKeyIsHeldWhenEveryColumnIsAlikeAsSqlHasIt() {
    Column shop = Column.of("shop", Type.STRING);
    Column day = Column.of("day", Type.DATE);
    Column price = Column.of("price", Type.decimal(9, 2));
    Column x = Column.of("x", Type.DOUBLE);
    Column t = Column.of("t", Type.TIMESTAMP);
    FeedSchema orders = new FeedSchema("orders", Schema.of(shop, day, price, x, t), List.of(shop, day), t,
        List.of(shop, day, t));
    LocalDate d = LocalDate.of(1969, 12, 31);
    Instant before1970 = Instant.parse("1969-12-31T23:59:59.999999Z");
    List<Object> first = Arrays.asList("s1", d, new BigDecimal("1.50"), -0.0, before1970);
    Map<List<Object>, Occurrence> firsts = new LinkedHashMap<>();
    firsts.put(List.of("s1", d), occurrence(first, 1L, "a", at(0)));
    firsts.put(List.of("s1", d.plusDays(1)), occurrence(Arrays.asList("s1", d.plusDays(1), null, Double.NaN,
        before1970), 1L, "a", at(0)));
    Map<List<Object>, List<List<Object>>> held = new HashMap<>();
    held.put(List.of("s1", d), List.of(Arrays.asList("s1", d, new BigDecimal("1.5"), 0.0, before1970)));
    held.put(List.of("s1", d.plusDays(1)), List.of(Arrays.asList("s1", d.plusDays(1), BigDecimal.ZERO, Double.NaN,
        before1970)));
    assertThat(CorrectionRules.recordFixes(orders, firsts, held, at(0))).as("1.5 is 1.50, -0.0 is 0.0, NaN is NaN; "
        + "a null is not 0").containsExactly(new RecordFix("orders", List.of("s1", d.plusDays(1)),
        Arrays.asList("s1", d.plusDays(1), null, Double.NaN, before1970), 1));
  }

  @Test
  void aLateChangeIsOneFinalUnderTheWatermarkThatTheLogLacks() {
    Change logged = Seed.change("c1", "Acme", "gold", at(0));
    Change late = Seed.change("c1", "Bolt", "gold", at(5));
    Change notFinal = Seed.change("c2", "Cog", "gold", at(30));
    Change delete = new Change(List.of("c0"), at(1), true, List.of("ignored", "ignored"));
    assertThat(CorrectionRules.lateChanges(List.of(notFinal, late, logged, delete, late), at(10), List.of(logged)))
        .containsExactly(Seed.delete("c0", at(1)), late);
  }

  private static List<Fields> read(List<List<Object>> rows) {
    return rows.stream().<Fields>map(r -> name -> r.get(RestatementRecords.PLAN.index(name))).toList();
  }

  @Test
  void aPlanReadBackIsTheCorrectionsItWasWrittenFrom() {
    CorrectionSet c = new CorrectionSet(List.of(new WindowFix(COUNTS, List.of("c1"), at(0), null, List.of(2L)),
        new WindowFix(COUNTS, List.of("c1"), at(5), List.of(1L), List.of(3L))),
        List.of(new RecordFix(EVENTS, List.of(7), event(7, null, null, at(3)), 0)),
        List.of(new ChangeFix(COMPANIES, Seed.delete("c1", at(4)))));
    Shapes shapes = Seed.PIPELINE.shapes();
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1, shapes);
    assertThat(rows).hasSize(4).allMatch(r -> r.size() == RestatementRecords.PLAN.size());
    assertThat(CorrectionPlan.read(read(rows), shapes)).isEqualTo(c);
    assertThat(CorrectionLog.rows(c, "run", "restate-run", shapes, Seed.PIPELINE.correctedTables(), at(9)))
        .extracting(r -> r.get(RestatementRecords.LOG.index(RestatementRecords.CORRECTION)))
        .containsExactly(CorrectionLog.WINDOW_INSERT, CorrectionLog.WINDOW_RECOUNT, CorrectionLog.EVENT_ADDED,
            CorrectionLog.LATE_CHANGE);
    assertThat(CorrectionLog.rows(c, "run", "restate-run", shapes, Seed.PIPELINE.correctedTables(), at(9)))
        .extracting(r -> r.get(RestatementRecords.LOG.index(RestatementRecords.TARGET_TABLE)))
        .containsExactly("facts.event_counts", "facts.event_counts", "facts.events", "dims.companies");
  }

  @Test
  void aPlanCarriesTheValuesOfPromotedFieldsEachReadBackInItsType() {
    Column region = Column.of("region", Type.STRING);
    Column score = Column.of("score", Type.DOUBLE);
    Column seen = Column.of("seen_at", Type.TIMESTAMP);
    Column big = Column.of("big", Type.BIGINT);
    Column vip = Column.of("vip", Type.BOOLEAN);
    Column rank = Column.of("rank", Type.INT);
    FeedSchema events = Seed.EVENTS.with(region).with(score).with(seen).with(big);
    DimensionSchema companies = Seed.COMPANIES.with(vip).with(rank);
    Shapes declared = Seed.PIPELINE.shapes();
    Shapes promoted = new Shapes(declared.aggregations(), Map.of(EVENTS, events), Map.of(COMPANIES, companies));
    Instant micros = Instant.parse("2026-01-01T00:00:00.123456Z");
    List<Object> first = new ArrayList<>(event(7, "c1", 1.5, at(3)));
    first.addAll(Arrays.asList("e\"u\n", 0.1 + 0.2, micros, Long.MAX_VALUE));
    List<Object> second = new ArrayList<>(event(8, null, null, at(3)));
    second.addAll(Arrays.asList(null, Double.NaN, null, -1L));
    CorrectionSet c = new CorrectionSet(List.of(new WindowFix(COUNTS, List.of("c1"), at(0), null, List.of(2L))),
        List.of(new RecordFix(EVENTS, List.of(7), first, 0), new RecordFix(EVENTS, List.of(8), second, 2)),
        List.of(new ChangeFix(COMPANIES, Seed.change("c1", "Acme", "gold", at(4), true, Integer.MIN_VALUE)),
            new ChangeFix(COMPANIES, new Change(List.of("c2"), at(4), true, Arrays.asList(null, null, false, 3)))));
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1, promoted);
    assertThat(rows).allMatch(r -> r.size() == RestatementRecords.PLAN.size());
    CorrectionSet back = CorrectionPlan.read(read(rows), promoted);
    assertThat(back).isEqualTo(c);
    assertThat(back.records().get(0).first()).containsExactly(7, "c1", 1.5, at(3), "e\"u\n", 0.1 + 0.2, micros,
        Long.MAX_VALUE);
    assertThat(back.changes().get(1).change().attributes()).as("a delete carries no attributes")
        .containsExactly(null, null, null, null);
    assertThat(CorrectionPlan.read(read(rows), declared)).as("read without the promoted fields").isNotEqualTo(c);
  }

  @Test
  void aPlanKeepsDecimalsDatesAndCompositeKeysExactly() {
    Column shop = Column.of("shop", Type.STRING);
    Column day = Column.of("day", Type.DATE);
    Column price = Column.of("price", Type.decimal(12, 3));
    Column t = Column.of("t", Type.TIMESTAMP);
    FeedSchema orders = new FeedSchema("orders", Schema.of(shop, day, price, t), List.of(shop, day), t,
        List.of(shop, day, t));
    Aggregation sales = new Aggregation(new Windows(Duration.ofSeconds(420)), List.of(shop, day),
        Column.of("w", Type.TIMESTAMP), List.of(Measure.count("n"), new Measure("total", Measure.Function.SUM, price),
        new Measure("low", Measure.Function.MIN, price), new Measure("first_day", Measure.Function.MIN, day)));
    Column segment = Column.of("segment", Type.decimal(5, 0));
    Column op = Column.of("op", Type.STRING);
    DimensionSchema stores = new DimensionSchema(new FeedSchema("stores", Schema.of(shop, day, segment, t, op),
        List.of(shop, day), t, List.of(shop, day, t)), List.of(segment), new DeleteMarker(op, "D"));
    Shapes shapes = new Shapes(Map.of("sales", sales), Map.of("orders", orders), Map.of("stores", stores));
    LocalDate d = LocalDate.of(1969, 7, 20);
    Instant before1970 = Instant.parse("1969-07-20T20:17:40.000001Z");
    BigDecimal huge = new BigDecimal("9999999999999999999.999");
    CorrectionSet c = new CorrectionSet(
        List.of(new WindowFix("sales", List.of("s|1", d), before1970.minusSeconds(40), Arrays.asList(1L,
            new BigDecimal("-0.001"), new BigDecimal("-0.001"), d), Arrays.asList(2L, huge, new BigDecimal("-0.001"),
            d))),
        List.of(new RecordFix("orders", List.of("s|1", d), Arrays.asList("s|1", d, new BigDecimal("0.100"),
            before1970), 0)),
        List.of(new ChangeFix("stores", Change.set(List.of("s|1", d), before1970, List.of(new BigDecimal("12")))),
            new ChangeFix("stores", Change.delete(List.of("s|1", d), before1970.plusSeconds(1), 1))));
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1, shapes);
    CorrectionSet back = CorrectionPlan.read(read(rows), shapes);
    assertThat(back).isEqualTo(c);
    assertThat(back.windows().get(0).fresh().get(1)).isEqualTo(huge);
    assertThat(rows.get(3).get(RestatementRecords.PLAN.index(RestatementRecords.NEW_VALUE)))
        .as("a delete's marker in the log row").asString().contains("\"op\":\"D\"");
  }

  @Test
  void aPlanRowWithoutAPromotedFieldsValueIsAnErrorNotANull() {
    CorrectionSet c = new CorrectionSet(List.of(), List.of(new RecordFix(EVENTS, List.of(7),
        event(7, "c1", 1.5, at(3)), 0)), List.of());
    List<List<Object>> rows = CorrectionPlan.rows(c, "run", "restate-run", 1, Seed.PIPELINE.shapes());
    Shapes promoted = new Shapes(Map.of(), Map.of(EVENTS, Seed.EVENTS.with(Column.of("region", Type.STRING))),
        Map.of());
    assertThatThrownBy(() -> CorrectionPlan.read(read(rows), promoted))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no value for region");
  }

  @Test
  void thePromotedAttributesDeclareTheCompaniesAsTheirArchiveDoes() {
    Column region = Column.of("region", Type.STRING);
    Schema archive = Seed.CHANGES.columns().plus(Ingest.SCHEMA).plus(Rescued.DATA, region);
    assertThat(Seed.COMPANIES.declaredBy(archive)).isEqualTo(Seed.COMPANIES.with(region));
    assertThat(Seed.COMPANIES.declaredBy(archive).attributes()).as("tracked").endsWith(region);
    assertThat(Seed.COMPANIES.declaredBy(Seed.CHANGES.columns().plus(Ingest.SCHEMA).plus(Rescued.DATA)))
        .isEqualTo(Seed.COMPANIES);
  }

  @Test
  void theFirstOccurrenceHandsItsPromotedValuesToItsFix() {
    FeedSchema promoted = Seed.EVENTS.with(Column.of("region", Type.STRING));
    List<Object> values = new ArrayList<>(event(1, "c1", 1.0, at(0)));
    values.add("eu");
    Occurrence first = occurrence(values, 1L, "a", at(8));
    assertThat(CorrectionRules.recordFixes(promoted, Map.of(List.of(1), first), Map.of(), at(10)))
        .containsExactly(new RecordFix(EVENTS, List.of(1), values, 0));
  }
}
