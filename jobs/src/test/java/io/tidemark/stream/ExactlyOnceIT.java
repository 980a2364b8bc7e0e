package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Landing;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StreamScript;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Crashes at every point of a micro-batch, through the real command ({@code stream all}; each crash in a JVM of its
 * own, each rerun a new command line in this JVM, as a recovery has only the checkpoints and the tables to go on):
 * before the Iceberg commit, between the Iceberg commit and the checkpoint commit (for the raw stream, between its
 * two tables' commits; for dedup, whose rerun must still move its watermark on), a SIGKILL in the middle of a run,
 * and a checkpoint commit marker deleted after a run. After each rerun every table equals an uninterrupted run over
 * the same arrivals.
 */
class ExactlyOnceIT extends StackTest {
  private static final GeneratorSpec SPEC = new GeneratorSpec(77, 4_000, 6, 0.04, 0.02, 1, 0.02, 6, 0, 1,
      GeneratorSpec.DEFAULT_START, 60);

  ExactlyOnceIT() {
    super("once");
  }

  private record Tables(TableName raw, TableName rejected, TableName events, TableName counts) {
    static Tables of(SeedTables t) {
      return new Tables(t.rawEvents(), t.rejected(), t.events(), t.eventCounts());
    }
  }

  private Tables tables(String suffix) {
    return new Tables(fx.rawEvents("raw_" + suffix),
        fx.table(TableCatalog::rejected, "rejected_" + suffix), fx.events("events_" + suffix),
        fx.counts("counts_" + suffix));
  }

  /** What the tables hold, but for ingest times, which differ between two runs over the same data. */
  private List<List<String>> contents(Tables t) {
    return List.of(
        fx.strings("SELECT concat_ws('|', CAST(event_id AS STRING), source_file, CAST(batch_id AS STRING)) FROM "
            + t.raw().sql() + " ORDER BY 1"),
        fx.strings("SELECT concat_ws('|', line, reason, CAST(batch_id AS STRING)) FROM " + t.rejected().sql()
            + " ORDER BY 1"),
        fx.eventRows(t.events()), fx.countRows(t.counts()));
  }

  @Test
  void crashesAnywhereThenRerunGiveTheUninterruptedTables() throws Exception {
    // the pipeline under test: its own bucket, tables and checkpoints, run by the command
    Path cpRoot = tmp.resolve("checkpoints");
    Pipeline pipeline = new Pipeline(stack, "once", cpRoot);
    Tables test = Tables.of(SeedTables.of(pipeline.config()));
    Landing landing = Landing.bucket(stack, pipeline.config().landingBucket());
    List<Arrival> arrivals = new GeneratedScenario(SPEC, Seed.PIPELINE).arrivals();

    // the uninterrupted reference, in this JVM, over the same S3 prefix: it runs as each arrival lands
    Tables ref = tables("ref");
    String source = landing.source(SeedScenarios.EVENTS);
    StreamScript reference = StreamScript.of(landing::land,
        () -> SeedContract.raw(spark, source, ref.raw(), ref.rejected(), tmp.resolve("ref-raw").toString()),
        () -> SeedContract.dedup(spark, source, ref.events().toString(), tmp.resolve("ref-dedup").toString()),
        () -> SeedContract.counts(spark, source, ref.counts().toString(), tmp.resolve("ref-counts").toString()));
    StreamScript.command(a -> reference.arrive(a).run(), pipeline.env(), "stream", "all")
        // arrival 1: a clean run
        .arrive(arrivals.get(0)).run()
        // arrival 2: counts dies between its Iceberg commit and its checkpoint commit
        .arrive(arrivals.get(1)).crash("windowed-counts:after-commit:*").restart()
        .expectLine("windowed-counts: ", "1 batch(es) already committed")
        // arrival 3: raw dies after its raw-table commit, before the rejected table's
        .arrive(arrivals.get(2)).crash("raw:after-commit:*").restart()
        .expectLine("raw: ", "1 batch(es) already committed")
        // arrival 4: dedup dies when its batch starts, before any commit
        .arrive(arrivals.get(3)).crash("dedup:before-commit:*").restart()
        .expectLine("dedup: ", "row(s) into " + test.events())
        // arrival 5: dedup dies between its Iceberg commit and its checkpoint commit: the rerun skips the write but
        // must still move the watermark on, or arrival 6 runs with the old one and keeps what the reference drops
        .arrive(arrivals.get(4)).crash("dedup:after-commit:*").restart()
        .expectLine("dedup: ", "1 batch(es) already committed")
        // arrival 6: SIGKILL in the middle of the run, once dedup has started its batch
        .arrive(arrivals.get(5)).kill("once dedup has started its batch", nextBatchStarted(cpRoot.resolve("dedup")))
        .restart()
        .expect("the uninterrupted tables", s -> assertSameContents(test, ref, "after the SIGKILL and a rerun"))
        // a checkpoint commit marker lost after a run: the batch runs again and writes nothing twice
        .then("windowed-counts loses its last commit marker", s -> loseLastCommit(cpRoot.resolve("windowed-counts")))
        .restart()
        .expect("the uninterrupted tables", s -> assertSameContents(test, ref, "after losing a commit marker"))
        .expect("a batch run again keeps its ingest time", s -> {
          assertThat(fx.count(test.counts())).isPositive();
          assertThat(fx.strings("SELECT CAST(batch_id AS STRING) FROM (SELECT batch_id, ingest_ts FROM "
              + test.raw().sql() + " UNION ALL SELECT batch_id, ingest_ts FROM " + test.rejected().sql()
              + ") GROUP BY batch_id HAVING count(DISTINCT ingest_ts) > 1"))
              .as("a batch run again after a crash keeps its ingest time, in both tables").isEmpty();
        });
  }

  /** Once the stream has started the batch after the last one its checkpoint committed: its offsets appear. */
  private static StreamScript.Trigger nextBatchStarted(Path checkpoint) {
    return () -> {
      Path started = checkpoint.resolve("offsets/" + (lastBatch(checkpoint) + 1));
      return () -> Files.exists(started);
    };
  }

  /** The commit marker of the checkpoint's last batch goes, as if the run had died before writing it. */
  private static void loseLastCommit(Path checkpoint) throws IOException {
    int last = lastBatch(checkpoint);
    Files.delete(checkpoint.resolve("commits/" + last));
    Files.deleteIfExists(checkpoint.resolve("commits/." + last + ".crc"));
  }

  /**
   * A run that dies after a data batch's checkpoint commit, before it plans the trailing no-data batch: the next
   * run must drop late rows as an uninterrupted run does (Spark drops a batch's late rows against the watermark
   * of the batch before it, which without the no-data batch is an older one). Made here by taking each run's
   * no-data batch out of dedup's checkpoint (its offsets, commit and state version): the checkpoint such a crash
   * leaves. Dedup's no-data batch writes nothing to the table, so the table is as the crash leaves it too.
   */
  @Test
  void aRunDeadBeforeItsNoDataBatchDropsWhatTheUninterruptedRunDrops() throws Exception {
    Landing landing = stack.landing("nodata");
    String source = landing.source(SeedScenarios.EVENTS);
    TableName whole = fx.events("events_whole");
    TableName cut = fx.events("events_cut");
    Path cp = tmp.resolve("cp-cut");
    int removed = 0;
    for (Arrival a : new GeneratedScenario(SPEC, Seed.PIPELINE).arrivals()) {
      landing.land(a);
      SeedContract.dedup(spark, source, whole.toString(), tmp.resolve("cp-whole").toString());
      SeedContract.dedup(spark, source, cut.toString(), cp.toString());
      int last = lastBatch(cp);
      if (OffsetLog.noNewData(spark, cp.toString(), last)) {
        removeBatch(cp, last);
        removed++;
      }
    }
    assertThat(removed).as("no-data batches taken out").isGreaterThanOrEqualTo(4);
    List<String> expected = fx.eventRows(whole);
    List<String> actual = fx.eventRows(cut);
    List<String> surplus = new java.util.ArrayList<>(actual);
    expected.forEach(surplus::remove);
    assertThat(surplus).as("rows the uninterrupted run dropped as late").isEmpty();
    assertThat(actual).isEqualTo(expected);
  }

  /** Takes batch {@code batch} out of a checkpoint: its offsets, its commit and the state version it wrote. */
  private static void removeBatch(Path checkpoint, int batch) throws IOException {
    for (String log : List.of("offsets", "commits")) {
      Files.delete(checkpoint.resolve(log + "/" + batch));
      Files.deleteIfExists(checkpoint.resolve(log + "/." + batch + ".crc"));
    }
    // a batch writes state version batch + 1 (a delta, and maybe a snapshot of it)
    String version = Integer.toString(batch + 1);
    try (Stream<Path> s = Files.walk(checkpoint.resolve("state"))) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        String n = f.getFileName().toString();
        if (n.startsWith(version + ".") || n.startsWith("." + version + ".")) {
          Files.delete(f);
        }
      }
    }
  }

  /** Table by table, naming the rows one side has more of than the other (the lists are too long to print). */
  private void assertSameContents(Tables test, Tables ref, String when) {
    List<List<String>> actual = contents(test);
    List<List<String>> expected = contents(ref);
    String[] names = {"raw", "rejected", "events", "counts"};
    for (int i = 0; i < names.length; i++) {
      List<String> missing = new java.util.ArrayList<>(expected.get(i));
      actual.get(i).forEach(missing::remove);
      List<String> extra = new java.util.ArrayList<>(actual.get(i));
      expected.get(i).forEach(extra::remove);
      assertThat(missing).as("%s: rows of %s missing (%d), first of them", when, names[i], missing.size())
          .isEmpty();
      assertThat(extra).as("%s: rows of %s in surplus (%d), first of them", when, names[i], extra.size()).isEmpty();
    }
  }

  private static int lastBatch(Path checkpoint) throws IOException {
    try (Stream<Path> s = Files.list(checkpoint.resolve("commits"))) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+")).mapToInt(Integer::parseInt)
          .max().orElse(-1);
    }
  }
}
