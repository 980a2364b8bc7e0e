package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.CrashPoints;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.config.TableName;
import io.tidemark.core.Change;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LocalLanding;
import io.tidemark.land.SeedScenarios;
import io.tidemark.maintain.Compaction;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.testing.Landing;
import io.tidemark.testing.Scd2Oracle;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StreamScript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class Scd2IT extends StackTest {
  Scd2IT() {
    super("scd2");
  }

  private record Dim(TableName dimension, TableName log, TableName raw, TableName rejected) {}

  private Dim tables(String suffix) {
    return new Dim(fx.table(n -> TableCatalog.dimension(n, Seed.COMPANIES), "companies_" + suffix),
        fx.table(n -> TableCatalog.changeLog(n, Seed.COMPANIES), "changes_" + suffix),
        fx.table(n -> TableCatalog.raw(n, Seed.CHANGES), "raw_" + suffix),
        fx.table(TableCatalog::rejected, "rej_" + suffix));
  }

  /** The raw archive of the changes, then the SCD2 stream (report 1 of each run). */
  private StreamScript script(Consumer<Arrival> lands, String source, Dim t, Path checkpoint) {
    return StreamScript.of(lands,
        () -> RawArchive.run(spark, Seed.RAW_COMPANIES, Seed.CHANGES, source, t.raw(), t.rejected(),
            checkpoint.resolve("raw").toString(), CrashPoints.NONE),
        () -> scd2(source, t, checkpoint.resolve("scd2").toString()));
  }

  /** The seed's SCD2 stream with a watermark of a day, on the given tables. */
  private RunReport scd2(String source, Dim t, String checkpoint) {
    return Scd2Upsert.run(spark, Seed.SCD2, source, t.dimension(), t.log(), checkpoint, Duration.ofDays(1),
        CrashPoints.NONE, Seed.COMPANIES);
  }

  private void assertInvariants(Dim t) {
    assertThat(Scd2Invariants.check(spark, t.dimension(), Optional.of(t.log()), Seed.COMPANIES))
        .as("SCD2 invariants").isEmpty();
  }

  /**
   * The seed, arrival by arrival on S3: after each, the history equals DuckDB's rebuild from all changes. The SCD2
   * stream's test in the quick tier.
   */
  @Test
  @Tag("quick")
  void seedHistoryEqualsTheRebuildAfterEveryArrival() throws Exception {
    Landing landing = stack.landing("scd2seed");
    Dim t = tables("seed");
    List<Path> files = new ArrayList<>();
    StreamScript script = script(landing::land, landing.source(SeedScenarios.COMPANIES), t, tmp.resolve("cp"));
    script.eachArrival(SeedScenarios.SCD2.arrivals(), a -> {
      files.addAll(landing.download(SeedScenarios.COMPANIES, a.number(), tmp));
      RunReport r = script.last(1);
      try (Scd2Oracle oracle = new Scd2Oracle(files)) {
        assertThat(fx.historyRows(t.dimension())).as("after arrival %d: %s", a.number(), r.summary())
            .isEqualTo(oracle.history());
      }
      assertInvariants(t);
      if (a.number() == 2) {
        assertThat(r.written(t.log())).as("c2's unchanged repeat is logged once").isEqualTo(5);
      }
    });
    assertThat(fx.historyRows(t.dimension())).containsExactly(
        "c1|Acme Corp|gold|2026-01-01 00:30:00|2026-01-01 00:45:00|false",
        "c1|Acme|gold|2026-01-01 00:00:00|2026-01-01 00:30:00|false",
        "c1|Acme|platinum|2026-01-01 00:45:00|NULL|true",
        "c2|Bolt|gold|2026-01-01 04:00:00|NULL|true",
        "c2|Bolt|silver|2026-01-01 00:00:00|2026-01-01 03:00:00|false",
        "c3|Cog|bronze|2026-01-01 00:30:00|2026-01-01 01:30:00|false",
        "c3|Cog|gold|2026-01-01 02:00:00|NULL|true",
        "c3|Cog|silver|2026-01-01 01:30:00|2026-01-01 02:00:00|false");
  }

  /**
   * Crash after the change-log commit, then after the MERGE commit, then replay the batch: nothing twice, and
   * the replay makes no commit to the tables; its one commit records the batch, which the crashed runs could not.
   * All input again with a fresh checkpoint makes no commit.
   */
  @Test
  void replaysAndAllInputAgainChangeNothing() throws Exception {
    Landing landing = stack.landing("scd2replay");
    String source = landing.source(SeedScenarios.COMPANIES);
    Dim t = tables("replay");
    StreamScript script = StreamScript.command(landing::land, stack.env(), "stream", "scd2", "--source", source,
        "--table", t.dimension().toString(), "--changes-table", t.log().toString(), "--checkpoint",
        tmp.resolve("cp").toString());
    script.arrive(SeedScenarios.SCD2.arrivals())
        .crash("scd2:after-commit:*")
        .expect("the change log committed, not the MERGE", s -> {
          assertThat(fx.count(t.log())).as("the log was committed").isPositive();
          assertThat(fx.count(t.dimension())).as("the MERGE was not").isZero();
        })
        .crash("scd2:after-commit:*")
        .expect("the MERGE committed", s -> assertThat(fx.count(t.dimension())).isEqualTo(8));
    long logRows = fx.count(t.log());
    String beforeReplay = stack.nessie().hash(stack.config().nessieRef());

    script.restart()
        .expect("the replay commits nothing but the record of its batch", s -> {
          assertThat(s.output().out()).contains("2 batch(es) already committed");
          assertThat(stack.nessie().commitsSince(stack.config().nessieRef(), beforeReplay))
              .as("the replay's commits").singleElement()
              .satisfies(c -> assertThat(c.message())
                  .endsWith(" row(s) to " + SeedTables.of(stack.config()).streamBatches()));
        });
    String head = stack.nessie().hash(stack.config().nessieRef());

    RunReport again = scd2(source, t, tmp.resolve("fresh").toString());
    assertThat(again.rowsWritten().values()).as("%s", again.summary()).allMatch(n -> n == 0);
    assertThat(stack.nessie().hash(stack.config().nessieRef())).as("all input again commits nothing").isEqualTo(head);
    assertThat(fx.count(t.log())).isEqualTo(logRows);
    assertThat(fx.historyRows(t.dimension())).hasSize(8);
    assertInvariants(t);
  }

  /**
   * The course's signature, {@code scd2(spark, source_dir, table, checkpoint)}: the change log next to the table,
   * created on the way, and the default watermark.
   */
  private RunReport scd2(String sourceDir, String table, String checkpoint) {
    TableName dim = TableName.parse(table);
    spark.sql(TableCatalog.changeLog(changeLogOf(dim), Seed.COMPANIES).createSql());
    DimensionFeed companies = (DimensionFeed) stack.config().pipeline().feed(SeedScenarios.COMPANIES);
    return Scd2Upsert.run(spark, companies.stream(), sourceDir, dim, changeLogOf(dim), checkpoint,
        companies.watermark(), CrashPoints.NONE, companies.dimension());
  }

  private static TableName changeLogOf(TableName dimension) {
    return new TableName(dimension.namespace(), dimension.table() + "_changes");
  }

  @Test
  void runWithTheFourArgumentContract() {
    Landing landing = stack.landing("scd2sig").land(SeedScenarios.SCD2.arrivals());
    TableName dim = fx.table(n -> TableCatalog.dimension(n, Seed.COMPANIES), "sig");
    RunReport r = scd2(landing.source(SeedScenarios.COMPANIES), dim.toString(), tmp.resolve("cp").toString());
    assertThat(r.written(dim)).as("%s", r.summary()).isEqualTo(8);
    assertThat(fx.count(changeLogOf(dim))).isEqualTo(11);
    assertThat(Scd2Invariants.check(spark, dim, Optional.of(changeLogOf(dim)), Seed.COMPANIES)).isEmpty();
  }

  /** The seed's mutants: an SCD1 overwrite, an old version left open, wrong effective dating. */
  @Test
  void theCheckerCatchesTheMutants() {
    Dim t = tables("mutants");
    String changes = "INSERT INTO " + t.log().sql() + " VALUES "
        + "('c1', 'Acme', 'gold', TIMESTAMP '2026-01-01 00:00:00', false), "
        + "('c1', 'Acme', 'platinum', TIMESTAMP '2026-01-01 01:00:00', false), "
        + "('c2', 'Bolt', 'silver', TIMESTAMP '2026-01-01 00:00:00', false), "
        + "('c2', NULL, NULL, TIMESTAMP '2026-01-01 03:00:00', true), "
        + "('c2', 'Bolt', 'gold', TIMESTAMP '2026-01-01 04:00:00', false)";
    spark.sql(changes);
    String good = "('c1', 'Acme', 'gold', TIMESTAMP '2026-01-01 00:00:00', TIMESTAMP '2026-01-01 01:00:00', false), "
        + "('c1', 'Acme', 'platinum', TIMESTAMP '2026-01-01 01:00:00', NULL, true), "
        + "('c2', 'Bolt', 'silver', TIMESTAMP '2026-01-01 00:00:00', TIMESTAMP '2026-01-01 03:00:00', false), "
        + "('c2', 'Bolt', 'gold', TIMESTAMP '2026-01-01 04:00:00', NULL, true)";
    assertThat(violations(t, good)).as("the correct history, with a gap after c2's delete").isEmpty();

    String scd1 = "('c1', 'Acme', 'platinum', TIMESTAMP '2026-01-01 00:00:00', NULL, true), "
        + "('c2', 'Bolt', 'gold', TIMESTAMP '2026-01-01 00:00:00', NULL, true)";
    assertThat(violations(t, scd1)).as("SCD1 overwrite").contains("version not in the history rebuilt from the "
        + "changes", "version of the rebuilt history missing");

    String notClosed = good.replace("TIMESTAMP '2026-01-01 01:00:00', false), ", "NULL, true), ");
    assertThat(violations(t, notClosed)).as("old version left open").contains("more than one open version",
        "versions overlap");

    String overlap = good.replace("TIMESTAMP '2026-01-01 01:00:00', false)", "TIMESTAMP '2026-01-01 01:10:00', false)");
    assertThat(violations(t, overlap)).as("valid_to after the next valid_from").contains("versions overlap");
    String gap = good.replace("TIMESTAMP '2026-01-01 01:00:00', false)", "TIMESTAMP '2026-01-01 00:50:00', false)");
    assertThat(violations(t, gap)).as("valid_to before the next valid_from")
        .contains("gap between versions without a delete");
  }

  private List<String> violations(Dim t, String rows) {
    spark.sql("DELETE FROM " + t.dimension().sql());
    spark.sql("INSERT INTO " + t.dimension().sql() + " VALUES " + rows);
    List<String> bySpark = Scd2Invariants.check(spark, t.dimension(), Optional.of(t.log()), Seed.COMPANIES).stream()
        .map(Scd2Invariants.Violation::check).toList();
    // the restatement's audit runs the same rules in DuckDB over the rows it read: the same verdict
    try (java.sql.Connection duckdb = java.sql.DriverManager.getConnection("jdbc:duckdb:")) {
      List<String> byDuckDb = Scd2Invariants.check(duckdb,
          spark.table(t.dimension().sql()).collectAsList().stream()
              .map(r -> Seed.COMPANIES.versionOf(SparkRows.fields(r))).toList(),
          Optional.of(spark.table(t.log().sql()).collectAsList().stream()
              .map(r -> Seed.COMPANIES.change(SparkRows.fields(r))).toList()), Seed.COMPANIES)
          .stream().map(Scd2Invariants.Violation::check).toList();
      assertThat(byDuckDb).as("the same rules in DuckDB").isEqualTo(bySpark);
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
    return bySpark;
  }

  /** 4k changes over 500 companies in 4 arrivals, with repeats, deletes, out-of-order changes, bad lines. */
  @Test
  void generatedChangesEqualTheOracle() throws Exception {
    GeneratorSpec spec = new GeneratorSpec(5, 0, 1, 0, 0, 0, 0.01, 4, 4_000, 500, GeneratorSpec.DEFAULT_START, 60);
    Dim t = tables("generated");
    Path landing = tmp.resolve("landing");
    String source = landing.resolve("companies").toString();
    List<Path> files = new ArrayList<>();
    StreamScript script = script(a -> files.addAll(LocalLanding.write(landing, "", List.of(a))), source, t,
        tmp.resolve("cp"));
    script.eachArrival(new GeneratedScenario(spec, Seed.PIPELINE).arrivals(),
        a -> System.out.println("arrival " + a.number() + ": " + script.last(1).summary()));
    long rejected = fx.count(t.rejected());
    try (Scd2Oracle oracle = new Scd2Oracle(files)) {
      assertThat(fx.count(t.raw())).as("valid changes archived").isEqualTo(oracle.validChanges());
      assertThat(fx.count(t.raw()) + rejected).as("every line accounted for")
          .isEqualTo(files.stream().mapToLong(f -> lines(f)).sum());
      assertThat(rejected).isPositive();
      assertThat(fx.historyRows(t.dimension())).as("the history vs DuckDB's rebuild").isEqualTo(oracle.history());
    }
    assertThat(fx.strings("SELECT CAST(count(DISTINCT company_id) AS STRING) FROM " + t.dimension().sql()))
        .allMatch(n -> Integer.parseInt(n) >= 300);
    assertInvariants(t);
  }

  /**
   * Compaction commits between a batch's read of the dimension and its commit (here: right after the batch's append
   * to the change log), rewriting the file that holds the version the batch closes: the batch's position delete
   * names a file that is gone, Iceberg refuses the commit, and the batch is settled again on the rewritten
   * dimension. Without that the stream would fail (a rerun would repair it); with it, the history is DuckDB's.
   */
  @Test
  void aBatchSettlesAgainWhenCompactionRewroteTheDimensionMeanwhile() throws Exception {
    TableName dim = fx.table(n -> TableCatalog.dimension(n, Seed.COMPANIES), "compacted");
    TableName log = fx.table(n -> TableCatalog.changeLog(n, Seed.COMPANIES), "compacted_log");
    List<Change> changes = List.of(change("c1", "Acme", "gold", "2026-01-01T00:00:00Z"),
        change("c2", "Bolt", "silver", "2026-01-01T00:00:00Z"),
        change("c1", "Acme", "platinum", "2026-01-02T00:00:00Z"));
    // two batches, two data files in the dimension; the third closes c1's version in the first file
    new Scd2OnDriver(load(log), load(dim), Seed.COMPANIES).apply(changes.subList(0, 1), commits(() -> { }));
    new Scd2OnDriver(load(log), load(dim), Seed.COMPANIES).apply(changes.subList(1, 2), commits(() -> { }));
    List<Compaction.Result> compacted = new ArrayList<>();
    Compaction compaction = new Compaction(spark, new Compaction.Options(128L << 20, 2, 1, false));
    new Scd2OnDriver(load(log), load(dim), Seed.COMPANIES).apply(changes.subList(2, 3),
        commits(() -> compacted.add(compaction.compact(dim))));

    assertThat(compacted).as("compaction ran between the read and the commit")
        .singleElement().matches(r -> r.rewrittenFiles() == 2, "rewrote both files");
    Path file = Files.write(tmp.resolve("compacted.jsonl"), changes.stream().map(c -> "{\"company_id\":\""
        + c.key().get(0) + "\",\"name\":\"" + c.attributes().get(0) + "\",\"tier\":\"" + c.attributes().get(1)
        + "\",\"change_ts\":\"" + c.at() + "\"}").toList());
    try (Scd2Oracle oracle = new Scd2Oracle(List.of(file))) {
      assertThat(fx.historyRows(dim)).isEqualTo(oracle.history());
    }
    assertInvariants(new Dim(dim, log, null, null));
  }

  private org.apache.iceberg.Table load(TableName t) {
    return io.tidemark.lakehouse.tables.IcebergTables.load(spark, t);
  }

  private static Change change(String company, String name, String tier, String ts) {
    return Seed.change(company, name, tier, java.time.Instant.parse(ts));
  }

  /** Commits that write at once; {@code afterLog} runs right after the change log's commit. */
  private static Scd2Apply.Commits commits(Runnable afterLog) {
    return new Scd2Apply.Commits() {
      @Override
      public void toLog(long rows, Consumer<java.util.Map<String, String>> write) {
        write.accept(java.util.Map.of());
        afterLog.run();
      }

      @Override
      public void toDimension(long rows, Consumer<java.util.Map<String, String>> write) {
        write.accept(java.util.Map.of());
      }
    };
  }

  /**
   * A small batch is settled on the driver, a large one in Spark: both must give the same history and the same
   * difference, here on changes made to collide (several at one instant, nulls, deletes, names that Java's and
   * Spark's string orders sort differently).
   */
  @Test
  void driverAndSparkSettleChangesAlike() {
    Random random = new Random(7);
    String[] names = {"Acme", "acme", "\uff21cme", "\ud83d\ude00cme", "Bolt", null};
    String[] tiers = {"gold", "silver", null};
    Boolean[] deleted = {false, false, false, true, null};
    List<Row> changes = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      changes.add(RowFactory.create("c" + random.nextInt(60), names[random.nextInt(names.length)],
          tiers[random.nextInt(tiers.length)],
          Timestamp.valueOf(LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(random.nextInt(20))),
          deleted[random.nextInt(deleted.length)]));
    }
    List<Row> earlier = changes.subList(0, 300);
    List<Version> onDriver = Scd2History.rebuild(asChanges(changes));
    Dataset<Row> inSpark = SparkScd2History.rebuild(spark.createDataFrame(changes,
        SparkRows.struct(Seed.CHANGES.columns())), Seed.COMPANIES);
    assertThat(sorted(onDriver.stream().map(Version::values).toList())).as("history")
        .isEqualTo(sorted(values(inSpark))).hasSizeGreaterThan(60);

    Dataset<Row> current = SparkScd2History.rebuild(spark.createDataFrame(earlier,
        SparkRows.struct(Seed.CHANGES.columns())), Seed.COMPANIES);
    List<String> diff = sorted(io.tidemark.core.Scd2Difference.of(onDriver, current.collectAsList().stream()
        .map(r -> Seed.COMPANIES.versionOf(SparkRows.fields(r))).toList()).stream()
        .map(c -> withOp(c.version().values(), c.upsert() ? "upsert" : "delete")).toList());
    assertThat(diff).as("difference")
        .isEqualTo(sorted(values(SparkScd2Difference.of(inSpark, current, Seed.COMPANIES))));
    assertThat(diff).anyMatch(r -> r.endsWith(", upsert]")).anyMatch(r -> r.endsWith(", delete]"));
  }

  private static List<Change> asChanges(List<Row> rows) {
    return rows.stream().map(r -> Boolean.TRUE.equals(r.get(4))
        ? Seed.delete(r.getString(0), r.getTimestamp(3).toInstant())
        : Seed.change(r.getString(0), r.getString(1), r.getString(2), r.getTimestamp(3).toInstant())).toList();
  }

  private static List<List<Object>> values(Dataset<Row> rows) {
    return rows.collectAsList().stream().map(SparkRows::values).toList();
  }

  private static List<Object> withOp(List<Object> version, String op) {
    List<Object> out = new ArrayList<>(version);
    out.add(op);
    return out;
  }

  private static List<String> sorted(List<List<Object>> rows) {
    return rows.stream().map(String::valueOf).sorted().toList();
  }

  private static long lines(Path f) {
    try {
      return Files.readAllLines(f).size();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
