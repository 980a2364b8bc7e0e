package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.JsonMembers;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.testing.Scd2Oracle;
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
  abstract B batch(List<CompanyChange> changes);

  private record Dim(TableName dimension, TableName log) {}

  private Dim tables(String name) {
    return new Dim(fx.table(TableCatalog::companies, name), fx.table(TableCatalog::companyChanges, name + "_log"));
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

  private Scd2Apply.Applied apply(Dim t, List<CompanyChange> changes, Counted commits) {
    return engine(t.dimension(), t.log()).apply(batch(changes), commits);
  }

  private Set<CompanyVersion> dimension(Dim t) {
    Set<CompanyVersion> out = new HashSet<>();
    spark.table(t.dimension().sql()).collectAsList().forEach(r -> out.add(CompanyVersion.of(SparkRows.fields(r))));
    return out;
  }

  private List<CompanyChange> log(Dim t) {
    return spark.table(t.log().sql()).collectAsList().stream().map(r -> CompanyChange.of(SparkRows.fields(r)))
        .toList();
  }

  /**
   * DuckDB's history of {@code changes}, as landed lines: "company|name|tier|valid_from|valid_to|is_current" rows,
   * sorted ({@link Scd2Oracle}).
   */
  private List<String> oracle(List<CompanyChange> changes) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (CompanyChange c : changes) {
      lines.append("{\"company_id\":").append(JsonMembers.quoted(c.companyId()));
      if (c.deleted()) {
        lines.append(",\"deleted\":true");
      } else {
        lines.append(",\"name\":").append(c.name() == null ? "null" : JsonMembers.quoted(c.name()))
            .append(",\"tier\":").append(c.tier() == null ? "null" : JsonMembers.quoted(c.tier()));
      }
      lines.append(",\"change_ts\":\"").append(c.changeTs()).append("\"}\n");
    }
    java.nio.file.Path file = java.nio.file.Files.writeString(java.nio.file.Files.createTempFile(tmp, "changes",
        ".jsonl"), lines.toString());
    try (Scd2Oracle duck = new Scd2Oracle(List.of(file))) {
      return duck.history();
    }
  }

  /** The dimension's versions as the oracle writes its rows, sorted. */
  private static List<String> rows(Set<CompanyVersion> versions) {
    java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
        .withZone(java.time.ZoneOffset.UTC);
    return versions.stream().map(v -> v.companyId() + "|" + (v.name() == null ? "NULL" : v.name()) + "|"
        + (v.tier() == null ? "NULL" : v.tier()) + "|" + f.format(v.validFrom()) + "|"
        + (v.validTo() == null ? "NULL" : f.format(v.validTo())) + "|" + v.current()).sorted().toList();
  }

  private static Instant at(int minute) {
    return Instant.parse("2026-01-01T00:00:00Z").plusSeconds(60L * minute);
  }

  /** A burst: changes at one instant, a repeat, a delete and a re-open, a change in the same batch twice. */
  private static final List<CompanyChange> BURST = List.of(
      CompanyChange.set("c1", "Acme", "gold", at(0)), CompanyChange.set("c1", "Acme", "gold", at(10)),
      CompanyChange.set("c1", "Acme", "platinum", at(20)), CompanyChange.set("c1", "Acme", "platinum", at(20)),
      CompanyChange.set("c2", "Bolt", "silver", at(0)), CompanyChange.set("c2", "Bolt", "gold", at(0)),
      CompanyChange.delete("c2", at(30)), CompanyChange.set("c2", "Bolt", "gold", at(40)),
      CompanyChange.set("c3", "\ud83d\ude00", null, at(5)), CompanyChange.set("c3", "\uff21", null, at(5)));

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
    List<CompanyChange> first = List.of(CompanyChange.set("c1", "Acme", "gold", at(0)),
        CompanyChange.set("c1", "Bolt", "gold", at(60)), CompanyChange.set("c2", "Cog", "gold", at(0)));
    apply(t, first, new Counted());
    // late for c1 (between its two versions), a repeat of what the log holds, and a change of c2 to the same state
    List<CompanyChange> second = List.of(CompanyChange.set("c1", "Cale", "gold", at(30)),
        CompanyChange.set("c1", "Acme", "gold", at(0)), CompanyChange.set("c2", "Cog", "gold", at(45)));
    Counted commits = new Counted();
    Scd2Apply.Applied applied = apply(t, second, commits);
    List<CompanyChange> all = new ArrayList<>(first);
    all.addAll(second);
    assertThat(rows(dimension(t))).isEqualTo(oracle(all));
    assertThat(applied.fresh()).as("the repeat is logged already").isEqualTo(2);
    assertThat(applied.versions()).as("c1's first version closed earlier, the new one between").isEqualTo(2);
    assertThat(dimension(t)).contains(new CompanyVersion("c1", "Cale", "gold", at(30), at(60), false));
  }
}
