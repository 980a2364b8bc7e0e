package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Scd2Difference;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.testing.GeneratedFeeds;
import io.tidemark.testing.LocalSpark;
import io.tidemark.testing.Seed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The SCD2 stream settles a large batch in Spark ({@link SparkScd2History}, {@link SparkScd2Difference},
 * {@link Scd2ChangeLog}) and a small one on the driver by the core's rules: over generated changes made to collide
 * (few keys and instants, repeats, deletes, nulls, names that Java's and Spark's string orders sort apart), the
 * Spark plans give exactly what the rules give, on the seed's companies (each round a company set of its own, all
 * rounds in one plan) and on generated dimensions (composite keys, 1-3 tracked attributes of any type, -0.0 and NaN
 * among them, a boolean or a string delete marker, an untracked column).
 */
class Scd2EnginesPropertyTest {
  private static final String[] NAMES = {"Acme", "acme", "\uff21cme", "\ud83d\ude00cme", "Bolt", null};
  private static final String[] TIERS = {"gold", "silver", null};
  private static final int ROUNDS = 300;

  private final SparkSession spark = LocalSpark.get();

  private static List<Change> changes(SplittableRandom rng, int round, int n) {
    List<Change> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String company = "r" + round + "-c" + rng.nextInt(3);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(8));
      out.add(rng.nextDouble() < 0.15 ? Seed.delete(company, at)
          : Seed.change(company, NAMES[rng.nextInt(NAMES.length)], TIERS[rng.nextInt(TIERS.length)], at));
    }
    return out;
  }

  private Dataset<Row> frame(List<List<Object>> rows, Schema schema) {
    return spark.createDataFrame(SparkRows.rows(rows), SparkRows.struct(schema));
  }

  private static Set<List<Object>> values(Dataset<Row> rows) {
    Set<List<Object>> out = new HashSet<>();
    rows.collectAsList().forEach(r -> out.add(GeneratedFeeds.sql(SparkRows.values(r))));
    return out;
  }

  private static Set<List<Object>> versions(List<Version> versions) {
    Set<List<Object>> out = new HashSet<>();
    versions.forEach(v -> out.add(GeneratedFeeds.sql(v.values())));
    return out;
  }

  private static Set<List<Object>> difference(List<Version> history, List<Version> current) {
    Set<List<Object>> out = new HashSet<>();
    for (Scd2Difference.Step s : Scd2Difference.of(history, current)) {
      List<Object> v = new ArrayList<>(GeneratedFeeds.sql(s.version().values()));
      v.add(s.upsert() ? SparkScd2Difference.UPSERT : SparkScd2Difference.DELETE);
      out.add(v);
    }
    return out;
  }

  private static List<List<Object>> logRows(DimensionSchema d, List<Change> changes) {
    return changes.stream().map(d::logRow).toList();
  }

  @Test
  void historyDifferenceAndUnloggedChangesAreTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(37);
    DimensionSchema d = Seed.COMPANIES;
    List<Change> all = new ArrayList<>();
    List<Change> earlier = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<Change> c = changes(rng, round, rng.nextInt(1, 14));
      all.addAll(c);
      earlier.addAll(c.subList(0, c.size() / 2));
    }
    Dataset<Row> allFrame = frame(logRows(d, all), d.logged());
    Dataset<Row> earlierFrame = frame(logRows(d, earlier), d.logged());

    List<Version> history = Scd2History.rebuild(all);
    Dataset<Row> sparkHistory = SparkScd2History.rebuild(allFrame, d).persist();
    assertThat(values(sparkHistory)).as("the history").isEqualTo(versions(history)).hasSizeGreaterThan(ROUNDS);

    List<Version> current = Scd2History.rebuild(earlier);
    Dataset<Row> currentFrame = frame(current.stream().map(Version::values).toList(), d.version());
    assertThat(values(SparkScd2Difference.of(sparkHistory, currentFrame, d))).as("the difference")
        .isEqualTo(difference(history, current)).anyMatch(v -> v.contains(SparkScd2Difference.DELETE));

    Set<Change> logged = Set.copyOf(earlier);
    Set<List<Object>> unlogged = new HashSet<>();
    all.stream().distinct().filter(c -> !logged.contains(c)).forEach(c -> unlogged.add(d.logRow(c)));
    assertThat(values(Scd2ChangeLog.unlogged(allFrame.distinct(), earlierFrame))).as("the changes the log lacks")
        .isEqualTo(unlogged);
    sparkHistory.unpersist();
  }

  private static final String[] REGIONS = {"eu", "EU", "\uff21", null};
  private static final Integer[] SEATS = {1, -1, 10, null};
  static final DimensionSchema PROMOTED = Seed.COMPANIES.with(Column.of("region", Type.STRING))
      .with(Column.of("seats", Type.INT));

  /** Changes whose promoted attributes alone often differ: name and tier mostly fixed. */
  static List<Change> promotedChanges(SplittableRandom rng, int round, int n) {
    List<Change> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String company = "p" + round + "-c" + rng.nextInt(2);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(6));
      out.add(rng.nextDouble() < 0.1 ? Seed.delete(company, at, 4)
          : Seed.change(company, rng.nextDouble() < 0.8 ? "Acme" : "Bolt", "gold", at,
              REGIONS[rng.nextInt(REGIONS.length)], SEATS[rng.nextInt(SEATS.length)]));
    }
    return out;
  }

  @Test
  void withPromotedAttributesTheSparkPlansAreStillTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(38);
    List<Change> all = new ArrayList<>();
    List<Change> earlier = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<Change> c = promotedChanges(rng, round, rng.nextInt(1, 10));
      all.addAll(c);
      earlier.addAll(c.subList(0, c.size() / 2));
    }
    Dataset<Row> allFrame = frame(logRows(PROMOTED, all), PROMOTED.logged());
    List<Version> history = Scd2History.rebuild(all);
    assertThat(history).as("versions where only a promoted attribute changed")
        .anyMatch(v -> history.stream().anyMatch(w -> w.key().equals(v.key()) && w.validFrom().equals(v.validTo())
            && w.attributes().subList(0, 2).equals(v.attributes().subList(0, 2))
            && !w.attributes().equals(v.attributes())));
    Dataset<Row> sparkHistory = SparkScd2History.rebuild(allFrame, PROMOTED).persist();
    assertThat(values(sparkHistory)).as("the history").isEqualTo(versions(history));

    List<Version> current = Scd2History.rebuild(earlier);
    Dataset<Row> currentFrame = frame(current.stream().map(Version::values).toList(), PROMOTED.version());
    assertThat(values(SparkScd2Difference.of(sparkHistory, currentFrame, PROMOTED))).as("the difference")
        .isEqualTo(difference(history, current));
    sparkHistory.unpersist();
  }

  /**
   * Generated dimensions: the changes as they land (the marker as it came, an untracked column) normalized by Spark
   * as by the core ({@link SparkScd2History#normalize} against {@link DimensionSchema#change} and
   * {@link DimensionSchema#logRow}); the history rebuilt from them, the difference from an older history and the
   * changes a log lacks, each the core's rule's.
   */
  @Test
  void onGeneratedDimensionsTheSparkPlansAreTheCoresRules() {
    GeneratedFeeds gen = new GeneratedFeeds(39);
    int versions = 0;
    for (int round = 0; round < 3; round++) {
      DimensionSchema d = gen.dimension("d" + round);
      String what = GeneratedFeeds.describe(d);
      List<List<Object>> raw = gen.changes(d, gen.random().nextInt(20, 120));
      List<Change> all = raw.stream().map(r -> d.change(GeneratedFeeds.fields(d.feed().columns(), r))).toList();
      List<Change> earlier = all.subList(0, all.size() / 2);
      Dataset<Row> rawFrame = frame(raw.stream().map(gen::otherwiseWritten).toList(), d.feed().columns());

      Map<List<Object>, Integer> normalized = new HashMap<>();
      SparkScd2History.normalize(rawFrame, d).collectAsList()
          .forEach(r -> normalized.merge(SparkRows.values(r), 1, Integer::sum));
      Map<List<Object>, Integer> byRule = new HashMap<>();
      all.forEach(c -> byRule.merge(d.logRow(c), 1, Integer::sum));
      assertThat(normalized).as(what + ": the changes normalized, as the log keeps them").isEqualTo(byRule);

      List<Version> history = Scd2History.rebuild(all);
      versions += history.size();
      Dataset<Row> sparkHistory = SparkScd2History.rebuild(rawFrame, d).persist();
      assertThat(values(sparkHistory)).as(what + ": the history").isEqualTo(versions(history));

      List<Version> current = Scd2History.rebuild(earlier);
      Dataset<Row> currentFrame = frame(current.stream().map(Version::values).map(gen::otherwiseWritten).toList(),
          d.version());
      assertThat(values(SparkScd2Difference.of(sparkHistory, currentFrame, d))).as(what + ": the difference")
          .isEqualTo(difference(history, current));
      sparkHistory.unpersist();

      // the driver's rule: the changes not among the logged ones, once each (Scd2OnDriver, CorrectionRules)
      Set<Change> logged = Set.copyOf(earlier);
      Set<List<Object>> unlogged = new HashSet<>();
      all.stream().distinct().filter(c -> !logged.contains(c)).forEach(c -> unlogged.add(GeneratedFeeds.sql(
          d.logRow(c))));
      Dataset<Row> allLog = frame(logRows(d, all).stream().map(gen::otherwiseWritten).toList(), d.logged());
      Dataset<Row> earlierLog = frame(logRows(d, earlier), d.logged());
      assertThat(values(Scd2ChangeLog.unlogged(allLog.distinct(), earlierLog))).as(what + ": the changes the log "
          + "lacks").isEqualTo(unlogged);
    }
    assertThat(versions).isGreaterThan(6);
    assertThat(gen.features()).contains("composite key", "key decimal", "key date", "boolean marker",
        "string marker", "attribute double");
  }
}
