package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.core.JsonMembers;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.testing.Scd2Oracle;
import io.tidemark.testing.Seed;
import io.tidemark.testing.StackTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * What every engine of the SCD2 apply ({@link Scd2Apply}) must do, on real tables in the catalog: the dimension
 * becomes the history rebuilt from every change logged, each change is logged once, a batch applied again commits
 * nothing, and a late change splits the version it falls in. The history expected is DuckDB's rebuild of the changes
 * as lines ({@link Scd2Oracle}), not the core's rule the engines implement: a wrong rule would hold in both. Run
 * against each engine by a subclass.
 *
 * @param <B> the changes as the engine takes them
 */
abstract class Scd2ApplyContract<B> extends StackTest {
  Scd2ApplyContract(String prefix) {
    super(prefix);
  }

  /** The engine under test, on these tables as they are now. */
  abstract Scd2Apply<B> engine(TableName dimension, TableName changeLog);

  /** The changes as the engine takes them. */
  abstract B batch(List<Change> changes);

  /** Which engine of the factory ({@link Scd2Engines}) this is. */
  abstract Scd2Engines.Engine kind();

  /**
   * Sizes of batches the factory must settle with this engine: the stream first asks whether a batch's input (Spark's
   * estimate) may be collected, then counts its on-time changes and their keys.
   */
  abstract List<Size> sizesOfItsBatches();

  /** A batch's size as the factory sees it: estimated bytes of input, on-time changes, their keys. */
  record Size(long bytes, long rows, long keys) {}

  /** The engine the factory picks for a batch of that size, as the stream asks it. */
  private static Scd2Engines.Engine picked(Size s) {
    return Scd2Engines.mayFitTheDriver(s.bytes()) ? Scd2Engines.choose(s.rows(), s.keys()) : Scd2Engines.Engine.SPARK;
  }

  private record Dim(TableName dimension, TableName log) {}

  private Dim tables(String name) {
    return new Dim(fx.table(n -> TableCatalog.dimension(n, Seed.COMPANIES), name),
        fx.table(n -> TableCatalog.changeLog(n, Seed.COMPANIES), name + "_log"));
  }

  /** Commits that write when there are rows, counting what each was told. */
  private static final class Counted implements Scd2Apply.Commits {
    final List<Long> log = new ArrayList<>();
    final List<Long> dimension = new ArrayList<>();

    @Override
    public void toLog(long rows, Consumer<Map<String, String>> write) {
      log.add(rows);
      if (rows > 0) {
        write.accept(Map.of());
      }
    }

    @Override
    public void toDimension(long rows, Consumer<Map<String, String>> write) {
      dimension.add(rows);
      if (rows > 0) {
        write.accept(Map.of());
      }
    }
  }

  private Scd2Apply.Applied apply(Dim t, List<Change> changes, Counted commits) {
    return engine(t.dimension(), t.log()).apply(batch(changes), commits);
  }

  private Set<Version> dimension(Dim t) {
    Set<Version> out = new HashSet<>();
    spark.table(t.dimension().sql()).collectAsList()
        .forEach(r -> out.add(Seed.COMPANIES.versionOf(SparkRows.fields(r))));
    return out;
  }

  private List<Change> log(Dim t) {
    return spark.table(t.log().sql()).collectAsList().stream().map(r -> Seed.COMPANIES.change(SparkRows.fields(r)))
        .toList();
  }

  /**
   * DuckDB's history of {@code changes}, as landed lines: "company|name|tier|valid_from|valid_to|is_current" rows,
   * sorted ({@link Scd2Oracle}).
   */
  private List<String> oracle(List<Change> changes) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (Change c : changes) {
      lines.append("{\"company_id\":").append(JsonMembers.quoted((String) c.key().get(0)));
      if (c.deleted()) {
        lines.append(",\"deleted\":true");
      } else {
        lines.append(",\"name\":").append(text(c.attributes().get(0)))
            .append(",\"tier\":").append(text(c.attributes().get(1)));
      }
      lines.append(",\"change_ts\":\"").append(c.at()).append("\"}\n");
    }
    java.nio.file.Path file = java.nio.file.Files.writeString(java.nio.file.Files.createTempFile(tmp, "changes",
        ".jsonl"), lines.toString());
    try (Scd2Oracle duck = new Scd2Oracle(List.of(file))) {
      return duck.history();
    }
  }

  /** The dimension's versions as the oracle writes its rows, sorted. */
  private static List<String> rows(Set<Version> versions) {
    java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
        .withZone(java.time.ZoneOffset.UTC);
    return versions.stream().map(v -> v.key().get(0) + "|" + shown(v.attributes().get(0)) + "|"
        + shown(v.attributes().get(1)) + "|" + f.format(v.validFrom()) + "|"
        + (v.validTo() == null ? "NULL" : f.format(v.validTo())) + "|" + v.current()).sorted().toList();
  }

  private static String text(Object value) {
    return value == null ? "null" : JsonMembers.quoted((String) value);
  }

  private static String shown(Object value) {
    return value == null ? "NULL" : value.toString();
  }

  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  /** A burst: changes at one instant, a repeat, a delete and a re-open, a change in the same batch twice. */
  private static final List<Change> BURST = List.of(
      Seed.change("c1", "Acme", "gold", at(0)), Seed.change("c1", "Acme", "gold", at(10)),
      Seed.change("c1", "Acme", "platinum", at(20)), Seed.change("c1", "Acme", "platinum", at(20)),
      Seed.change("c2", "Bolt", "silver", at(0)), Seed.change("c2", "Bolt", "gold", at(0)),
      Seed.delete("c2", at(30)), Seed.change("c2", "Bolt", "gold", at(40)),
      Seed.change("c3", "\ud83d\ude00", null, at(5)), Seed.change("c3", "\uff21", null, at(5)));

  @Test
  void theDimensionBecomesTheHistoryRebuiltFromEveryChangeEachLoggedOnce() throws Exception {
    Dim t = tables("burst");
    Counted commits = new Counted();
    Scd2Apply.Applied applied = apply(t, BURST, commits);
    List<String> history = oracle(BURST);
    assertThat(history).as("DuckDB's rebuild").hasSize(5);
    assertThat(rows(dimension(t))).as("the dimension").isEqualTo(history);
    assertThat(log(t)).as("the log").hasSize(9).containsExactlyInAnyOrderElementsOf(Set.copyOf(BURST));
    assertThat(applied).isEqualTo(new Scd2Apply.Applied(9, history.size()));
    assertThat(commits.log).containsExactly(9L);
    assertThat(commits.dimension).containsExactly((long) history.size());
  }

  @Test
  void theEngineFactoryPicksThisEngineForItsBatches() {
    assertThat(sizesOfItsBatches()).isNotEmpty();
    for (Size s : sizesOfItsBatches()) {
      assertThat(picked(s)).as("the engine for %s", s).isEqualTo(kind());
    }
  }

  /** The burst's size: a small batch (ten changes of three keys, a few hundred bytes). */
  static Size burst() {
    return new Size(1_000, BURST.size(), BURST.stream().map(Change::key).distinct().count());
  }

  @Test
  void aBatchAppliedAgainCommitsNothing() throws Exception {
    Dim t = tables("again");
    apply(t, BURST, new Counted());
    long snapshotsBefore = spark.sql("SELECT * FROM " + t.dimension() + ".snapshots").count()
        + spark.sql("SELECT * FROM " + t.log() + ".snapshots").count();
    Counted again = new Counted();
    assertThat(apply(t, BURST, again)).isEqualTo(new Scd2Apply.Applied(0, 0));
    assertThat(again.log).containsExactly(0L);
    assertThat(again.dimension).containsExactly(0L);
    assertThat(spark.sql("SELECT * FROM " + t.dimension() + ".snapshots").count()
        + spark.sql("SELECT * FROM " + t.log() + ".snapshots").count()).as("no commit").isEqualTo(snapshotsBefore);
    assertThat(rows(dimension(t))).isEqualTo(oracle(BURST));
  }

  @Test
  void aLateChangeSplitsTheVersionItFallsInAndOnlyTheDifferenceIsWritten() throws Exception {
    Dim t = tables("late");
    List<Change> first = List.of(Seed.change("c1", "Acme", "gold", at(0)),
        Seed.change("c1", "Bolt", "gold", at(60)), Seed.change("c2", "Cog", "gold", at(0)));
    apply(t, first, new Counted());
    // late for c1 (between its two versions), a repeat of what the log holds, and a change of c2 to the same state
    List<Change> second = List.of(Seed.change("c1", "Cale", "gold", at(30)),
        Seed.change("c1", "Acme", "gold", at(0)), Seed.change("c2", "Cog", "gold", at(45)));
    Counted commits = new Counted();
    Scd2Apply.Applied applied = apply(t, second, commits);
    List<Change> all = new ArrayList<>(first);
    all.addAll(second);
    assertThat(rows(dimension(t))).isEqualTo(oracle(all));
    assertThat(applied.fresh()).as("the repeat is logged already").isEqualTo(2);
    assertThat(applied.versions()).as("c1's first version closed earlier, the new one between").isEqualTo(2);
    assertThat(dimension(t)).contains(Seed.version("c1", "Cale", "gold", at(30), at(60), false));
  }
}
