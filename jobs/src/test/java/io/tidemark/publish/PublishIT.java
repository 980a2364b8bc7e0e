package io.tidemark.publish;

import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.stream.BatchArrivals;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.testing.Cli;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.PipelineOnItsOwnBranches;
import io.tidemark.testing.Steps;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@code tidemark publish} on a pipeline with branches of its own ({@code <name>_main} published, {@code
 * <name>_ingest} staged): the streams run as the command in JVMs of their own and commit to the staging branch;
 * main moves only by publish, one commit per arrival, equal to the staged head. Each check refuses an arrival that
 * breaks it (main stays, one line names the check, the staged commit is tagged) and a rerun after the fix publishes;
 * a crash before and after the merge and a kill of {@code stream all} leave main with each arrival exactly once; a
 * user's write on main is merged around when the arrival did not touch its table, and is a conflict, never
 * overwritten, when it did.
 */
@Steps
class PublishIT extends PipelineOnItsOwnBranches {
  private Lakehouse lakehouse;
  private final List<Arrival> seed = SeedScenarios.ALL.arrivals();

  PublishIT() {
    super("pub");
  }

  @BeforeAll
  void aPublisherInThisJvm() {
    // the publish in this JVM: its Spark catalog is on the suite's staging branch, but publish reads every table
    // at the staged commit by name (table@branch#hash) and merges through Nessie's API
    lakehouse = Lakehouse.attach(config, stack.endpoints(), spark);
  }

  @Test
  @Order(1)
  void anArrivalReachesMainOnlyByPublishInOneCommit() {
    assertThat(ourDiff()).as("bootstrap published the tables it made").isEmpty();
    String bootstrapped = nessie.hash(main);

    lander.land(seed.get(0));
    succeeds(Cli.run(env, "stream", "all"));
    assertThat(nessie.hash(main)).as("the streams do not move main").isEqualTo(bootstrapped);
    assertThat(count(t.events(), main)).isZero();
    assertThat(count(t.events(), ingest)).isPositive();
    String staged = nessie.hash(ingest);

    Publisher.Result dry = new Publisher(lakehouse).publish(true);
    assertThat(dry.mergeHash()).isNull();
    assertThat(dry.summary()).startsWith("publish (dry run): would publish events arrival 1, companies arrival 1, ");
    assertThat(nessie.hash(main)).as("a dry run commits nothing").isEqualTo(bootstrapped);
    assertThat(nessie.exists(RefNames.REJECTED + staged.substring(0, 8))).as("a dry run tags nothing").isFalse();

    Cli.Result r = succeeds(Cli.run(env, "publish"));
    assertThat(r.out()).contains("published events arrival 1, companies arrival 1, ").contains(" to " + main + " (")
        .contains("6 checks passed");
    List<NessieRest.Entry> commits = nessie.entriesSince(main, bootstrapped);
    assertThat(commits).as("one commit per publish").hasSize(1);
    NessieRest.Entry c = commits.get(0);
    assertThat(c.author()).isEqualTo(Publisher.AUTHOR);
    assertThat(c.message()).startsWith("publish events arrival 1, companies arrival 1 from " + ingest + ": ")
        .contains(t.events() + " +" + count(t.events(), ingest)).contains("6 checks passed");
    assertThat(c.properties()).containsEntry(CommitKeys.PUBLISHED, staged).containsEntry(CommitKeys.arrivalsOf("events"), "1")
        .containsEntry(CommitKeys.arrivalsOf("companies"), "1")
        .containsEntry(CommitKeys.AUDIT, CommitKeys.PASSED)
        .containsEntry(CommitKeys.ROWS + t.rawEvents(), Long.toString(count(t.rawEvents(), ingest)))
        .containsEntry(CommitKeys.ROWS + t.events(), Long.toString(count(t.events(), ingest)))
        .containsEntry(CommitKeys.ROWS + t.companies(), Long.toString(count(t.companies(), ingest)))
        .containsEntry(CommitKeys.CHECKS, String.join(",", ArrivalChecks.WRITERS, ArrivalChecks.LINES,
            ArrivalChecks.SCD2, ArrivalChecks.WINDOWS, ArrivalChecks.SAME_ARRIVALS, ArrivalChecks.EXPECTATIONS));
    assertMainIsStaged();

    String published = nessie.hash(main);
    Publisher.Result again = new Publisher(lakehouse).publish(false);
    assertThat(again.nothingStaged()).isTrue();
    assertThat(again.summary()).isEqualTo("publish: nothing staged on " + ingest + " that " + main
        + " does not have");
    assertThat(nessie.hash(main)).as("nothing new: no commit").isEqualTo(published);
  }

  /** (b): a dimension version that overlaps, written on the staging branch as the SCD2 stream would commit it. */
  @Test
  @Order(2)
  void anOverlapInTheDimensionIsRefusedTaggedAndPublishedAfterTheFix() throws Exception {
    lander.land(seed.get(1));
    succeeds(Cli.run(env, "stream", "all"));
    String clean = nessie.hash(ingest);
    String before = nessie.hash(main);
    Dataset<Row> overlap = spark.table(t.companies().sqlAt(ingest)).where("company_id = 'c1' AND is_current")
        .withColumn("valid_from", expr("valid_from + INTERVAL 1 MINUTE")).withColumn("tier", lit("overlap"));
    assertThat(overlap.count()).isEqualTo(1);
    overlap.writeTo(t.companies().sqlAt(ingest)).option("snapshot-property." + CommitKeys.STREAM, "scd2").append();
    String bad = nessie.hash(ingest);

    Cli.Result r = Cli.run(env, "publish");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines()).as("%s", r).hasSize(1);
    String tag = RefNames.REJECTED + bad.substring(0, 8);
    assertThat(r.errLines().get(0)).startsWith("tidemark: publish refused by check " + ArrivalChecks.SCD2 + ": ")
        .contains("tagged " + tag).endsWith("see " + PublishRefused.recipe(ArrivalChecks.SCD2))
        .hasSizeLessThan(200);
    assertThat(r.out()).as("what each check found, before the line").contains("FAIL " + ArrivalChecks.SCD2)
        .contains("c1").contains("tidemark check --branch " + tag);
    assertThat(nessie.hash(main)).as("main stays where it was").isEqualTo(before);
    assertThat(nessie.hash(tag)).as("the staged commit, kept for inspection").isEqualTo(bad);

    refs.reset(ingest, clean);
    Publisher.Result p = new Publisher(lakehouse).publish(false);
    assertThat(p.arrivals()).isEqualTo("events arrival 2, companies arrival 2");
    assertThat(count(t.companies(), main, "tier = 'overlap'")).isZero();
    assertThat(nessie.entriesSince(main, before)).hasSize(1);
    assertMainIsStaged();
  }

  @Test
  @Order(3)
  void aLandedLineNeitherArchivedNorQuarantinedIsRefused() {
    List<Lander.Outcome> landed = lander.land(seed.get(2));
    succeeds(Cli.run(env, "stream", "all"));
    URI file = landed.stream().map(o -> URI.create(o.uri())).filter(u -> u.getPath().contains("/events/"))
        .findFirst().orElseThrow();
    String key = file.getPath().substring(1);
    byte[] original = stack.lakehouse().storage().get(file.getHost(), key);
    String before = nessie.hash(main);
    // a line appended after the raw archive read the file: landed, never archived
    byte[] longer = (new String(original, StandardCharsets.UTF_8)
        + "{\"event_id\":999,\"company_id\":\"c1\",\"amount\":1.00,\"event_ts\":\"2026-01-01T00:30:00Z\"}\n")
        .getBytes(StandardCharsets.UTF_8);
    stack.lakehouse().storage().put(file.getHost(), key, longer, "application/x-ndjson");

    assertThat(refused()).startsWith("publish refused by check " + ArrivalChecks.LINES)
        .contains(key.substring(key.lastIndexOf('/') + 1)).contains("line(s) landed");
    assertThat(nessie.hash(main)).isEqualTo(before);

    stack.lakehouse().storage().put(file.getHost(), key, original, "application/x-ndjson");
    assertThat(new Publisher(lakehouse).publish(false).arrivals()).isEqualTo("events arrival 3, companies arrival 3");
    assertMainIsStaged();
  }

  @Test
  @Order(4)
  void aRowWrittenByHandOnTheStagingBranchIsRefused() {
    String clean = nessie.hash(ingest);
    String before = nessie.hash(main);
    spark.sql("INSERT INTO " + t.events().sqlAt(ingest) + " SELECT * FROM " + t.events().sqlAt(ingest) + " LIMIT 1");
    assertThat(refused()).startsWith("publish refused by check " + ArrivalChecks.WRITERS)
        .contains(t.events() + " snapshot").contains("made by none of tidemark's jobs");
    assertThat(nessie.hash(main)).isEqualTo(before);
    refs.reset(ingest, clean);
    assertThat(new Publisher(lakehouse).publish(false).nothingStaged()).isTrue();
  }

  /**
   * The raw archive alone took in an arrival: published, main would show its raw events next to events and counts
   * of the arrival before. (The seed's fourth arrival holds company changes only, so events are added to it.)
   */
  @Test
  @Order(5)
  void anArrivalSomeStreamsHaveNotTakenInIsRefused() {
    String before = nessie.hash(main);
    List<LandingFile> files = new ArrayList<>(seed.get(3).files());
    files.addAll(arrival(4, false).files());
    lander.land(new Arrival(4, files));
    succeeds(Cli.run(env, "stream", "raw"));
    assertThat(count(t.rawEvents(), ingest, "source_file LIKE '%/pub-4.jsonl'")).as("raw took in arrival 4")
        .isEqualTo(3);
    assertThat(refused()).startsWith("publish refused by check " + ArrivalChecks.SAME_ARRIVALS)
        .contains("events: raw took in arrival 4").contains("dedup up to arrival 3").contains("windowed-counts none staged")
        .contains("run `tidemark stream all`");
    assertThat(nessie.hash(main)).isEqualTo(before);

    succeeds(Cli.run(env, "stream", "all"));
    assertThat(new Publisher(lakehouse).publish(false).arrivals()).isEqualTo("events arrival 4, companies arrival 4");
    assertMainIsStaged();
  }

  /**
   * A finalized window written again, as a counts stream that lost its checkpoint would: with the stream's name and
   * its newest watermark, which the window's end is well before, so only its having been published already is wrong.
   */
  @Test
  @Order(6)
  void aWindowCountedAgainIsRefused() throws Exception {
    String clean = nessie.hash(ingest);
    String before = nessie.hash(main);
    long watermark = java.util.stream.StreamSupport.stream(SnapshotUtil.currentAncestors(
            IcebergTables.load(spark, t.eventCounts().sqlAt(ingest))).spliterator(), false)
        .map(s -> s.summary().get(CommitKeys.WATERMARK_MS)).filter(java.util.Objects::nonNull)
        .mapToLong(Long::parseLong).max().orElseThrow();
    Dataset<Row> again = spark.table(t.eventCounts().sqlAt(main)).orderBy("company_id", "w_start").limit(1);
    Row window = again.first();
    again.writeTo(t.eventCounts().sqlAt(ingest)).option("snapshot-property." + CommitKeys.STREAM, "windowed-counts")
        .option("snapshot-property." + CommitKeys.WATERMARK_MS, Long.toString(watermark)).append();
    String bad = nessie.hash(ingest);
    assertThat(refused()).startsWith("publish refused by check " + ArrivalChecks.WINDOWS)
        .contains(window.<String>getAs("company_id")).contains("published before")
        .contains("tag " + RefNames.REJECTED + bad.substring(0, 8));
    assertThat(nessie.hash(main)).isEqualTo(before);
    refs.reset(ingest, clean);
    assertThat(new Publisher(lakehouse).publish(false).nothingStaged()).isTrue();
  }

  /** (c): the publish's JVM halts after its checks passed, before the merge: a rerun publishes it once. */
  @Test
  @Order(7)
  void aCrashBeforeTheMergeThenARerunPublishesOnce() {
    String before = nessie.hash(main);
    lander.land(arrival(5, true));
    succeeds(Cli.run(env, "stream", "all"));
    Cli.Result crash = Cli.run(Cli.crashing(env, "publish:after-checks"), "publish");
    assertThat(crash.exitCode()).as("%s", crash).isEqualTo(137);
    assertThat(nessie.hash(main)).isEqualTo(before);
    assertThat(new Publisher(lakehouse).publish(false).arrivals()).isEqualTo("events arrival 5, companies arrival 5");
    assertOnceOnMain(5, before);
  }

  /** (c): the JVM halts right after the merge: the rerun finds nothing staged and commits nothing. */
  @Test
  @Order(8)
  void aCrashAfterTheMergeThenARerunCommitsNothing() {
    String before = nessie.hash(main);
    lander.land(arrival(6, true));
    succeeds(Cli.run(env, "stream", "all"));
    Cli.Result crash = Cli.run(Cli.crashing(env, "publish:after-merge"), "publish");
    assertThat(crash.exitCode()).as("%s", crash).isEqualTo(137);
    assertThat(nessie.entriesSince(main, before)).as("the merge was made").hasSize(1);
    assertThat(new Publisher(lakehouse).publish(false).nothingStaged()).isTrue();
    assertOnceOnMain(6, before);
  }

  /**
   * (c): {@code stream all} killed (its JVM halts, as on SIGKILL) right after dedup committed its batch of the
   * arrival, before dedup's checkpoint and before the runs' record, which is committed when every run has ended.
   * The other streams, running at once, may have committed all, part or none of the arrival by then (scd2 its change
   * log without the dimension's versions, say): publish refuses all of it, naming the streams behind or the batches
   * whose run did not end, and after the streams' rerun publishes the arrival once.
   */
  @Test
  @Order(9)
  void aKillOfTheStreamsThenTheirRerunPublishesOnce() {
    String before = nessie.hash(main);
    lander.land(arrival(7, true));
    Cli.Result crash = Cli.run(Cli.crashing(env, "dedup:after-commit:*"), "stream", "all");
    assertThat(crash.exitCode()).as("%s", crash).isEqualTo(137);
    Map<String, Set<String>> took = streamsThatStaged(7);
    assertThat(took.get(SeedScenarios.EVENTS)).as("dedup committed arrival 7 before the kill").contains("dedup");
    List<String> behind = new ArrayList<>();
    for (StreamDef d : config.pipeline().streams()) {
      Set<String> ofFeed = took.get(d.feed().name());
      if (!ofFeed.isEmpty() && !ofFeed.contains(d.name())) {
        behind.add(d.name());
      }
    }
    String line = refused();
    assertThat(line).as("streams that committed arrival 7: %s", took)
        .startsWith("publish refused by check " + ArrivalChecks.SAME_ARRIVALS)
        .contains("run `tidemark stream all`")
        .contains(behind.isEmpty() ? "dedup batch " : behind.get(0) + " ");
    if (behind.isEmpty()) {
      assertThat(line).contains("not recorded: its run did not end");
    }
    assertThat(nessie.hash(main)).isEqualTo(before);
    assertThat(count(t.events(), main, "event_id BETWEEN 1070 AND 1079")).isZero();

    succeeds(Cli.run(env, "stream", "all"));
    assertThat(new Publisher(lakehouse).publish(false).arrivals()).isEqualTo("events arrival 7, companies arrival 7");
    assertOnceOnMain(7, before);
  }

  /** A user's row on main in a table the arrival does not change: publish merges around it, and it stays. */
  @Test
  @Order(10)
  void aUsersWriteOnMainToATableTheArrivalDidNotTouchStays() throws Exception {
    spark.table(t.companies().sqlAt(main)).limit(1).withColumn("company_id", lit("u1"))
        .writeTo(t.companies().sqlAt(main)).append();
    String before = nessie.hash(main);
    lander.land(arrival(8, false));
    succeeds(Cli.run(env, "stream", "all"));
    Publisher.Result r = new Publisher(lakehouse).publish(false);
    assertThat(r.arrivals()).isEqualTo("events arrival 8");
    assertThat(r.rows()).doesNotContainKey(t.companies());
    assertThat(count(t.companies(), main, "company_id = 'u1'")).as("the user's row stays on main").isEqualTo(1);
    assertThat(count(t.companies(), ingest, "company_id = 'u1'")).isZero();
    assertThat(nessie.entriesSince(main, before)).hasSize(1);
    for (TableName table : List.of(t.rawEvents(), t.events(), t.eventCounts(), t.streamBatches())) {
      assertThat(count(table, main)).as("%s", table).isEqualTo(count(table, ingest));
    }
    assertThat(new Publisher(lakehouse).publish(false).nothingStaged()).as("the user's table is not staged")
        .isTrue();
  }

  /** A user's row on main in a table the arrival changes too: a conflict in one line, never forced. */
  @Test
  @Order(11)
  void aUsersWriteOnMainToATableTheArrivalChangedIsAConflict() throws Exception {
    lander.land(arrival(9, false));
    succeeds(Cli.run(env, "stream", "all"));
    String userless = nessie.hash(main);
    spark.table(t.events().sqlAt(main)).limit(1).withColumn("event_id", lit(-1L))
        .writeTo(t.events().sqlAt(main)).append();
    String before = nessie.hash(main);
    Cli.Result r = Cli.run(env, "publish");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(1);
    assertThat(r.errLines()).as("%s", r).hasSize(1);
    assertThat(r.errLines().get(0)).startsWith("tidemark: conflict: " + main + " changed " + t.events())
        .contains("never overwrites");
    assertThat(nessie.hash(main)).as("main keeps the user's write").isEqualTo(before);
    assertThat(count(t.events(), main, "event_id = -1")).isEqualTo(1);
    assertThat(count(t.events(), main, "event_id BETWEEN 1090 AND 1099")).as("arrival 9 is not on main").isZero();

    // the fix the line names: the user's change undone on main; the rerun publishes the arrival
    refs.reset(main, userless);
    assertThat(new Publisher(lakehouse).publish(false).arrivals()).isEqualTo("events arrival 9");
    assertThat(count(t.events(), main, "event_id = -1")).isZero();
    assertThat(count(t.events(), main, "event_id BETWEEN 1090 AND 1099")).isEqualTo(3);
  }

  // ---- helpers

  /** Arrival {@code n} (4 and on): three events at hour n, and a change of company c{n} when asked. */
  private static Arrival arrival(int n, boolean withChange) {
    StringBuilder events = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      events.append(String.format("{\"event_id\":%d,\"company_id\":\"c%d\",\"amount\":1.00,"
          + "\"event_ts\":\"2026-01-01T%02d:%02d:00Z\"}%n", 1000 + 10 * n + i, 1 + i % 2, n, 10 * i));
    }
    List<LandingFile> files = new ArrayList<>(List.of(LandingFile.of(SeedScenarios.EVENTS, "pub-" + n + ".jsonl",
        events.toString())));
    if (withChange) {
      files.add(LandingFile.of(SeedScenarios.COMPANIES, "pub-" + n + ".jsonl", String.format("{\"company_id\":\"c%d\","
          + "\"name\":\"Co%d\",\"tier\":\"gold\",\"change_ts\":\"2026-01-01T%02d:00:00Z\"}%n", n, n, n)));
    }
    return new Arrival(n, files);
  }

  /**
   * Arrival n is on main exactly once (its three events archived and deduplicated once, its change once), main
   * equals the staged head, and one publish commit was made since {@code before}.
   */
  private void assertOnceOnMain(int n, String before) {
    String file = "source_file LIKE '%/pub-" + n + ".jsonl'";
    assertThat(count(t.rawEvents(), main, file)).isEqualTo(3);
    assertThat(count(t.rejected(), main, file)).isZero();
    assertThat(count(t.events(), main, "event_id BETWEEN " + (1000 + 10 * n) + " AND " + (1009 + 10 * n)))
        .isEqualTo(3);
    assertThat(count(t.rawCompanyChanges(), main, file)).isEqualTo(1);
    assertThat(count(t.companyChanges(), main, "company_id = 'c" + n + "'")).isEqualTo(1);
    assertThat(spark.sql("SELECT event_id FROM " + t.events().sqlAt(main) + " GROUP BY event_id HAVING count(*) > 1")
        .count()).as("no event twice on main").isZero();
    assertThat(nessie.entriesSince(main, before)).as("one publish commit")
        .extracting(NessieRest.Entry::author).containsExactly(Publisher.AUTHOR);
    assertMainIsStaged();
  }

  /**
   * Per feed, the streams whose commits on the staging branch say they read arrival {@code n}: read from the
   * tables' snapshot summaries directly, not through what publish reads ({@code Staged}).
   */
  private Map<String, Set<String>> streamsThatStaged(int n) {
    Map<String, Set<String>> out = new java.util.HashMap<>();
    config.pipeline().feeds().forEach(f -> out.put(f.name(), new java.util.TreeSet<>()));
    for (TableName table : t.all()) {
      if (table.equals(t.streamBatches())) {
        continue; // the runs' record names several streams; the kill came before it
      }
      for (Snapshot s : SnapshotUtil.currentAncestors(IcebergTables.load(spark, table.sqlAt(ingest)))) {
        String stream = s.summary().get(CommitKeys.STREAM);
        if (stream != null && BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS)).contains(n)) {
          StreamDef d = config.pipeline().stream(stream);
          out.get(d.feed().name()).add(d.name());
        }
      }
    }
    return out;
  }

  /** Main's tables are the staged head's: the same content in Nessie, and the same rows read from both. */
  private void assertMainIsStaged() {
    assertThat(ourDiff()).as("tables that differ between %s and %s", main, ingest).isEmpty();
    for (TableName table : t.all()) {
      assertThat(count(table, main)).as("%s", table).isEqualTo(count(table, ingest));
    }
  }

  private List<String> ourDiff() {
    String ns = t.events().namespace() + ".";
    return nessie.diff(main, ingest).stream().filter(k -> k.startsWith(ns)).toList();
  }

  /**
   * What a refused publish in this JVM says: its one short line (which names the check and its recipe), then the
   * details the command prints before it.
   */
  private String refused() {
    Throwable e = org.assertj.core.api.Assertions.catchThrowable(() -> new Publisher(lakehouse).publish(false));
    assertThat(e).isInstanceOf(PublishRefused.class);
    PublishRefused refused = (PublishRefused) e;
    assertThat(e.getMessage()).doesNotContain("\n").hasSizeLessThan(300)
        .endsWith("see " + PublishRefused.recipe(refused.failed().name()));
    return e.getMessage() + "\n" + String.join("\n", refused.details());
  }

  private long count(TableName table, String ref) {
    return spark.table(table.sqlAt(ref)).count();
  }

  private long count(TableName table, String ref, String where) {
    return spark.table(table.sqlAt(ref)).where(where).count();
  }
}
