package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.GeneratedFeeds;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The core's rules over generated declarations ({@link GeneratedFeeds}: composite keys of int, long, string, date and
 * decimal columns, windows of any length, measures over every ordered type, dimensions with 1-3 tracked attributes and
 * a boolean or string delete marker) and rows made to collide (few keys and instants, nulls, -0.0 and NaN, decimals at
 * the ends of their precision, strings Java and Spark order apart, times before 1970): each rule holds what it says,
 * whatever the feed, against a check written here from its definition.
 */
class GeneratedFeedsPropertyTest {
  private static final int DECLARATIONS = 150;

  private static List<Fields> fields(Schema schema, List<List<Object>> rows) {
    return rows.stream().map(r -> GeneratedFeeds.fields(schema, r)).toList();
  }

  private static <T> List<T> shuffled(List<T> list, SplittableRandom rng) {
    List<T> out = new ArrayList<>(list);
    Collections.shuffle(out, new java.util.Random(rng.nextLong()));
    return out;
  }

  /** Equal as SQL has it: -0.0 is 0.0, decimals by value. */
  private static boolean sqlEqual(Object a, Object b) {
    if (a == null || b == null) {
      return a == b;
    }
    return SqlOrder.VALUES.compare(a, b) == 0;
  }

  @Test
  void aWindowsMeasuresAreItsRowsCountSumLeastAndGreatestWhateverTheirOrder() {
    GeneratedFeeds gen = new GeneratedFeeds(101);
    int windows = 0;
    for (int round = 0; round < DECLARATIONS; round++) {
      GeneratedFeeds.Fact fact = gen.fact("f" + round);
      FeedSchema feed = fact.feed();
      List<List<Object>> rows = gen.records(fact, gen.random().nextInt(1, 300));
      for (Aggregation a : fact.aggregations()) {
        String what = GeneratedFeeds.describe(feed) + " " + GeneratedFeeds.describe(a);
        Map<Aggregation.Key, List<Object>> computed = a.compute(fields(feed.columns(), rows), feed.eventTime());
        Map<Aggregation.Key, List<Object>> reordered = a.compute(fields(feed.columns(), shuffled(rows, gen.random())),
            feed.eventTime());
        assertThat(reordered.keySet()).as(what).isEqualTo(computed.keySet());
        Map<Aggregation.Key, List<List<Object>>> byWindow = new LinkedHashMap<>();
        for (List<Object> r : rows) {
          Instant t = (Instant) r.get(feed.columns().index(feed.eventTime()));
          Aggregation.Key k = new Aggregation.Key(GeneratedFeeds.fields(feed.columns(), r).values(a.groupBy()),
              a.windows().start(t));
          assertThat(t).as(what).isAfterOrEqualTo(k.start()).isBefore(a.windows().end(k.start()));
          assertThat(a.windows().isStart(k.start())).isTrue();
          byWindow.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
        }
        assertThat(computed.keySet()).as(what).isEqualTo(byWindow.keySet());
        for (Map.Entry<Aggregation.Key, List<List<Object>>> w : byWindow.entrySet()) {
          List<Object> m = computed.get(w.getKey());
          assertThat(a.same(m, reordered.get(w.getKey()))).as("%s: %s in another order", what, w.getKey()).isTrue();
          for (int i = 0; i < a.measures().size(); i++) {
            Measure measure = a.measures().get(i);
            Object v = m.get(i);
            String at = what + " " + measure + " of " + w.getKey() + " = " + v;
            if (v != null) {
              assertThat(v).as(at).isInstanceOf(measure.type().javaClass());
            }
            List<Object> values = measure.of() == null ? List.of() : w.getValue().stream()
                .map(r -> r.get(feed.columns().index(measure.of()))).filter(Objects::nonNull).toList();
            switch (measure.function()) {
              case COUNT -> assertThat(v).as(at).isEqualTo((long) w.getValue().size());
              case SUM -> assertSum(at, measure, values, v);
              case MIN, MAX -> {
                if (values.isEmpty()) {
                  assertThat(v).as(at + ": none but nulls").isNull();
                } else {
                  assertThat(values).as(at + ": a value of the window").anyMatch(x -> x.equals(v));
                  int sign = measure.function() == Measure.Function.MIN ? 1 : -1;
                  assertThat(values).as(at + ": in Spark's order").allMatch(x ->
                      sign * SqlOrder.VALUES.compare(x, v) >= 0);
                }
              }
              default -> throw new IllegalStateException();
            }
          }
          windows++;
        }
      }
    }
    assertThat(windows).isGreaterThan(DECLARATIONS * 5);
    for (String f : List.of("sum", "min", "max")) {
      assertThat(gen.features()).as(f).contains(f + " of int", f + " of bigint", f + " of double", f + " of decimal");
    }
    assertThat(gen.features()).contains("count", "min of date", "max of date", "min of string", "max of timestamp",
        "composite group", "group decimal", "group date", "group boolean", "window not dividing an hour");
  }

  private static void assertSum(String at, Measure measure, List<Object> values, Object v) {
    if (values.isEmpty()) {
      assertThat(v).as(at + ": none but nulls").isNull();
      return;
    }
    switch (measure.of().type().kind()) {
      case INT, BIGINT -> {
        long sum = 0; // as SQL's sum of integers: a long, wrapping
        for (Object x : values) {
          sum += ((Number) x).longValue();
        }
        assertThat(v).as(at).isEqualTo(sum);
      }
      case DECIMAL -> {
        BigDecimal sum = BigDecimal.ZERO.setScale(measure.of().type().scale());
        for (Object x : values) {
          sum = sum.add((BigDecimal) x);
        }
        assertThat(v).as(at + ": exactly, in the column's scale").isEqualTo(sum);
      }
      default -> {
        // another order: greatest first
        List<Double> sorted = values.stream().map(x -> (Double) x).sorted(Collections.reverseOrder()).toList();
        double sum = 0;
        for (double x : sorted) {
          sum += x;
        }
        assertThat(SqlOrder.closeDoubles((Double) v, sum)).as(at + " against " + sum).isTrue();
      }
    }
  }

  @Test
  void theHistoryOfAnyDimensionHoldsTheScd2InvariantsWhateverTheOrderAndRepeatsOfItsChanges() {
    GeneratedFeeds gen = new GeneratedFeeds(202);
    int versions = 0;
    for (int round = 0; round < DECLARATIONS; round++) {
      DimensionSchema d = gen.dimension("d" + round);
      String what = GeneratedFeeds.describe(d);
      List<List<Object>> raw = gen.changes(d, gen.random().nextInt(1, 40));
      List<Change> changes = new ArrayList<>();
      for (List<Object> r : raw) {
        Change c = d.change(GeneratedFeeds.fields(d.feed().columns(), r));
        changes.add(c);
        assertThat(d.change(GeneratedFeeds.fields(d.logged(), d.logRow(c)))).as(what + ": a change read back from "
            + "its row of the log").isEqualTo(c);
      }
      List<Version> history = Scd2History.rebuild(changes);
      versions += history.size();
      List<Change> again = new ArrayList<>(shuffled(changes, gen.random()));
      again.addAll(changes.subList(0, changes.size() / 2));
      assertThat(sqlSet(Scd2History.rebuild(shuffled(again, gen.random())))).as(what + ": in any order, repeated")
          .isEqualTo(sqlSet(history));
      assertInvariants(what, d, changes, history);

      // the difference from an older history makes it the new one; none from itself
      List<Version> older = Scd2History.rebuild(changes.subList(0, changes.size() / 2));
      Map<Version.Id, Version> applied = new HashMap<>();
      older.forEach(v -> applied.put(v.id(), v));
      for (Scd2Difference.Step s : Scd2Difference.of(history, older)) {
        if (s.upsert()) {
          applied.put(s.version().id(), s.version());
        } else {
          assertThat(applied.remove(s.version().id())).as(what + ": removes a version it has").isNotNull();
        }
      }
      assertThat(sqlSet(new ArrayList<>(applied.values()))).as(what + ": the difference applied")
          .isEqualTo(sqlSet(history));
      assertThat(Scd2Difference.of(history, history)).isEmpty();

      // the publish gate's rebuild from the published versions and the changes since equals the whole rebuild
      List<Change> log = changes.subList(0, changes.size() / 2);
      List<Change> staged = changes.subList(changes.size() / 2, changes.size());
      Map<List<Object>, Long> from = Scd2Since.earliest(staged);
      List<Change> since = new ArrayList<>(Scd2Since.asChanges(Scd2History.rebuild(log), from));
      changes.stream().filter(c -> Scd2Since.isFrom(c, from)).forEach(since::add);
      assertThat(sqlSet(Scd2History.rebuild(since))).as(what + ": rebuilt since the staged changes")
          .isEqualTo(sqlSet(history.stream().filter(v -> from.containsKey(v.key())).toList()));
    }
    assertThat(versions).isGreaterThan(DECLARATIONS * 2);
    assertThat(gen.features()).contains("composite key", "key int", "key bigint", "key string", "key date",
        "key decimal", "boolean marker", "string marker", "no marker", "attribute double", "attribute decimal",
        "attribute date", "attribute boolean", "attribute string");
  }

  /**
   * The SCD2 checks the publish gate and the restatement's audit run in DuckDB ({@link Scd2Checks}) pass the history
   * the core rebuilds of any dimension, and catch it broken (a version gone, one made to overlap its neighbour).
   */
  @Test
  void theDuckDbChecksPassTheCoresHistoryOfAnyDimensionAndCatchItBroken() throws Exception {
    // window is reserved in DuckDB, whose checks name columns unquoted
    GeneratedFeeds gen = new GeneratedFeeds(404).avoiding("window");
    int broken = 0;
    try (java.sql.Connection db = java.sql.DriverManager.getConnection("jdbc:duckdb:")) {
      for (int round = 0; round < DECLARATIONS / 5; round++) {
        DimensionSchema d = gen.dimension("d" + round);
        List<Change> changes = gen.changes(d, gen.random().nextInt(1, 40)).stream()
            .map(r -> d.change(GeneratedFeeds.fields(d.feed().columns(), r))).toList();
        List<Version> history = Scd2History.rebuild(changes);
        String what = GeneratedFeeds.describe(d) + " " + history;
        assertThat(io.tidemark.audit.Scd2Invariants.check(db, history, java.util.Optional.of(changes), d))
            .as(what).isEmpty();
        List<Version> closed = history.stream().filter(v -> v.validTo() != null).toList();
        if (!closed.isEmpty()) {
          Version v = closed.get(0);
          List<Version> overlapping = new ArrayList<>(history);
          overlapping.set(history.indexOf(v), new Version(v.key(), v.attributes(), v.validFrom(),
              v.validTo().plusSeconds(1), false));
          assertThat(io.tidemark.audit.Scd2Invariants.check(db, overlapping, java.util.Optional.of(changes), d))
              .as(what).extracting(io.tidemark.audit.Scd2Invariants.Violation::check)
              .contains("version not in the history rebuilt from the changes");
          broken++;
        }
        if (!history.isEmpty()) {
          assertThat(io.tidemark.audit.Scd2Invariants.check(db, history.subList(1, history.size()),
              java.util.Optional.of(changes), d)).as(what).extracting(io.tidemark.audit.Scd2Invariants.Violation::check)
              .contains("version of the rebuilt history missing");
        }
      }
    }
    assertThat(broken).isPositive();
  }

  private static Set<List<Object>> sqlSet(List<Version> versions) {
    Set<List<Object>> out = new HashSet<>();
    versions.forEach(v -> out.add(GeneratedFeeds.sql(v.values())));
    return out;
  }

  /** The SCD2 invariants, from their definition, and each version made by the change that wins its instant. */
  private static void assertInvariants(String what, DimensionSchema d, List<Change> changes, List<Version> history) {
    Map<List<Object>, List<Version>> byKey = new LinkedHashMap<>();
    history.forEach(v -> byKey.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(v));
    for (List<Version> ofKey : byKey.values()) {
      ofKey.sort(java.util.Comparator.comparing(Version::validFrom));
      assertThat(ofKey.stream().filter(v -> v.validTo() == null).count()).as(what + ": one open version at most")
          .isLessThanOrEqualTo(1);
      for (int i = 0; i < ofKey.size(); i++) {
        Version v = ofKey.get(i);
        String at = what + ": " + v;
        assertThat(v.current()).as(at).isEqualTo(v.validTo() == null);
        if (v.validTo() != null) {
          assertThat(v.validTo()).as(at).isAfter(v.validFrom());
        }
        List<Change> atStart = changes.stream().filter(c -> c.key().equals(v.key()) && c.at().equals(v.validFrom()))
            .toList();
        assertThat(atStart).as(at + ": starts at a change").isNotEmpty().noneMatch(Change::deleted);
        assertThat(atStart).as(at + ": the greatest attributes of its instant")
            .allMatch(c -> SqlOrder.valuesDescendingNullsLast().compare(v.attributes(), c.attributes()) <= 0)
            .anyMatch(c -> sqlAlike(c.attributes(), v.attributes()));
        Version next = i + 1 < ofKey.size() ? ofKey.get(i + 1) : null;
        if (next != null) {
          assertThat(v.validTo()).as(at + ": ends, and no later than the next starts").isNotNull()
              .isBeforeOrEqualTo(next.validFrom());
          if (v.validTo().equals(next.validFrom())) {
            assertThat(sqlAlike(v.attributes(), next.attributes())).as(at + ": unlike its neighbour " + next)
                .isFalse();
          }
        }
        if (v.validTo() != null && (next == null || v.validTo().isBefore(next.validFrom()))) {
          assertThat(changes).as(at + ": a gap after it is a delete's").anyMatch(c -> c.deleted()
              && c.key().equals(v.key()) && c.at().equals(v.validTo()));
        }
      }
    }
  }

  private static boolean sqlAlike(List<Object> a, List<Object> b) {
    for (int i = 0; i < a.size(); i++) {
      if (!sqlEqual(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aPlanOfAnyPipelineReadsBackExactly() {
    GeneratedFeeds gen = new GeneratedFeeds(303);
    for (int round = 0; round < DECLARATIONS / 3; round++) {
      GeneratedFeeds.Fact fact = gen.fact("f" + round);
      DimensionSchema d = gen.dimension("d" + round);
      FeedSchema feed = fact.feed();
      Map<String, Aggregation> aggregations = new LinkedHashMap<>();
      List<CorrectionSet.WindowFix> windows = new ArrayList<>();
      List<List<Object>> rows = gen.records(fact, 60);
      for (int i = 0; i < fact.aggregations().size(); i++) {
        Aggregation a = fact.aggregations().get(i);
        String name = "agg-" + i;
        aggregations.put(name, a);
        Map<Aggregation.Key, List<Object>> fresh = a.compute(fields(feed.columns(), rows), feed.eventTime());
        List<List<Object>> measures = new ArrayList<>(fresh.values());
        fresh.forEach((k, m) -> windows.add(new CorrectionSet.WindowFix(name, k.group(), k.start(),
            gen.random().nextBoolean() ? null : measures.get(gen.random().nextInt(measures.size())), m)));
      }
      Map<List<Object>, List<Object>> firsts = new LinkedHashMap<>();
      rows.forEach(r -> firsts.putIfAbsent(GeneratedFeeds.fields(feed.columns(), r).values(feed.key()), r));
      List<CorrectionSet.RecordFix> records = new ArrayList<>();
      firsts.forEach((k, r) -> records.add(new CorrectionSet.RecordFix(feed.name(), k, r,
          gen.random().nextInt(3))));
      Set<Change> changes = new LinkedHashSet<>();
      for (List<Object> r : gen.changes(d, 30)) {
        changes.add(d.change(GeneratedFeeds.fields(d.feed().columns(), r)));
      }
      CorrectionSet c = new CorrectionSet(windows, records,
          changes.stream().map(x -> new CorrectionSet.ChangeFix(d.name(), x)).toList());
      Shapes shapes = new Shapes(aggregations, Map.of(feed.name(), feed), Map.of(d.name(), d));
      List<List<Object>> plan = CorrectionPlan.rows(c, "run", "restate-run", 1, shapes);
      assertThat(plan).hasSize(windows.size() + records.size() + changes.size());
      CorrectionSet back = CorrectionPlan.read(plan.stream().<Fields>map(r ->
          name -> r.get(RestatementRecords.PLAN.index(name))).toList(), shapes);
      assertThat(back).as(GeneratedFeeds.describe(feed) + " / " + GeneratedFeeds.describe(d)).isEqualTo(c);
    }
  }
}
