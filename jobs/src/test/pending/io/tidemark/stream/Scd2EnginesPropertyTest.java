package io.tidemark.stream;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Scd2Difference;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.testing.LocalSpark;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The SCD2 stream settles a large batch in Spark ({@link SparkScd2History}, {@link SparkScd2Difference},
 * {@link Scd2ChangeLog}) and a small one on the driver by the core's rules: over generated changes made to collide
 * (few companies and instants, repeats, deletes, nulls, names that Java's and Spark's string orders sort apart), the
 * Spark plans give exactly what the rules give. Each round is a company set of its own, all rounds in one plan.
 */
class Scd2EnginesPropertyTest {
  private static final String[] NAMES = {"Acme", "acme", "\uff21cme", "\ud83d\ude00cme", "Bolt", null};
  private static final String[] TIERS = {"gold", "silver", null};
  private static final int ROUNDS = 300;

  private final SparkSession spark = LocalSpark.get();

  private static List<CompanyChange> changes(SplittableRandom rng, int round, int n) {
    List<CompanyChange> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String company = "r" + round + "-c" + rng.nextInt(3);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(8));
      out.add(rng.nextDouble() < 0.15 ? CompanyChange.delete(company, at)
          : CompanyChange.set(company, NAMES[rng.nextInt(NAMES.length)], TIERS[rng.nextInt(TIERS.length)], at));
    }
    return out;
  }

  private Dataset<Row> frame(List<List<Object>> rows, io.tidemark.core.Schema schema) {
    return spark.createDataFrame(SparkRows.rows(rows), SparkRows.struct(schema));
  }

  private static Set<List<Object>> values(Dataset<Row> rows) {
    Set<List<Object>> out = new HashSet<>();
    rows.collectAsList().forEach(r -> out.add(SparkRows.values(r)));
    return out;
  }

  private static Set<List<Object>> versions(List<CompanyVersion> versions) {
    Set<List<Object>> out = new HashSet<>();
    versions.forEach(v -> out.add(v.values()));
    return out;
  }

  @Test
  void historyDifferenceAndUnloggedChangesAreTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(37);
    List<CompanyChange> all = new ArrayList<>();
    List<CompanyChange> earlier = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<CompanyChange> c = changes(rng, round, rng.nextInt(1, 14));
      all.addAll(c);
      earlier.addAll(c.subList(0, c.size() / 2));
    }
    Dataset<Row> allFrame = frame(all.stream().map(CompanyChange::values).toList(), Seed.CHANGES.columns());
    Dataset<Row> earlierFrame = frame(earlier.stream().map(CompanyChange::values).toList(),
        Seed.CHANGES.columns());

    List<CompanyVersion> history = Scd2History.rebuild(all);
    Dataset<Row> sparkHistory = SparkScd2History.rebuild(allFrame).persist();
    assertThat(values(sparkHistory)).as("the history").isEqualTo(versions(history)).hasSizeGreaterThan(ROUNDS);

    List<CompanyVersion> current = Scd2History.rebuild(earlier);
    Dataset<Row> currentFrame = frame(current.stream().map(CompanyVersion::values).toList(), Seed.COMPANIES.version());
    Set<List<Object>> difference = new HashSet<>();
    for (Scd2Difference.Change c : Scd2Difference.of(history, current)) {
      List<Object> v = new ArrayList<>(c.version().values());
      v.add(c.upsert() ? SparkScd2Difference.UPSERT : SparkScd2Difference.DELETE);
      difference.add(v);
    }
    assertThat(values(SparkScd2Difference.of(sparkHistory, currentFrame))).as("the difference")
        .isEqualTo(difference).anyMatch(v -> v.contains(SparkScd2Difference.DELETE));

    Set<CompanyChange> logged = Set.copyOf(earlier);
    Set<List<Object>> unlogged = new HashSet<>();
    all.stream().distinct().filter(c -> !logged.contains(c)).forEach(c -> unlogged.add(c.values()));
    assertThat(values(Scd2ChangeLog.unlogged(allFrame.distinct(), earlierFrame))).as("the changes the log lacks")
        .isEqualTo(unlogged);
    sparkHistory.unpersist();
  }

  private static final String[] REGIONS = {"eu", "EU", "\uff21", null};
  private static final Integer[] SEATS = {1, -1, 10, null};
  static final FeedSchema PROMOTED = Seed.CHANGES.with(Column.of("region", Type.STRING))
      .with(Column.of("seats", Type.INT));

  /** Changes whose promoted attributes alone often differ: name and tier mostly fixed. */
  static List<CompanyChange> promotedChanges(SplittableRandom rng, int round, int n) {
    List<CompanyChange> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String company = "p" + round + "-c" + rng.nextInt(2);
      Instant at = Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * rng.nextInt(6));
      out.add(rng.nextDouble() < 0.1 ? new CompanyChange(company, null, null, at, true,
          Arrays.asList(null, null))
          : CompanyChange.set(company, rng.nextDouble() < 0.8 ? "Acme" : "Bolt", "gold", at,
              Arrays.asList(REGIONS[rng.nextInt(REGIONS.length)], SEATS[rng.nextInt(SEATS.length)])));
    }
    return out;
  }

  @Test
  void withPromotedAttributesTheSparkPlansAreStillTheCoresRules() {
    SplittableRandom rng = new SplittableRandom(38);
    List<CompanyChange> all = new ArrayList<>();
    List<CompanyChange> earlier = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<CompanyChange> c = promotedChanges(rng, round, rng.nextInt(1, 10));
      all.addAll(c);
      earlier.addAll(c.subList(0, c.size() / 2));
    }
    Dataset<Row> allFrame = frame(all.stream().map(CompanyChange::values).toList(), PROMOTED.columns());
    List<CompanyVersion> history = Scd2History.rebuild(all);
    assertThat(history).as("versions where only a promoted attribute changed")
        .anyMatch(v -> history.stream().anyMatch(w -> w.companyId().equals(v.companyId())
            && w.validFrom().equals(v.validTo()) && w.name().equals(v.name()) && !w.more().equals(v.more())));
    Dataset<Row> sparkHistory = SparkScd2History.rebuild(allFrame, PROMOTED).persist();
    assertThat(values(sparkHistory)).as("the history").isEqualTo(versions(history));

    List<CompanyVersion> current = Scd2History.rebuild(earlier);
    Dataset<Row> currentFrame = frame(current.stream().map(CompanyVersion::values).toList(),
        Dimension.version(PROMOTED));
    Set<List<Object>> difference = new HashSet<>();
    for (Scd2Difference.Change c : Scd2Difference.of(history, current)) {
      List<Object> v = new ArrayList<>(c.version().values());
      v.add(c.upsert() ? SparkScd2Difference.UPSERT : SparkScd2Difference.DELETE);
      difference.add(v);
    }
    assertThat(values(SparkScd2Difference.of(sparkHistory, currentFrame))).as("the difference").isEqualTo(difference);
    sparkHistory.unpersist();
  }
}
