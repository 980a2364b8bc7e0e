package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes at every point of a micro-batch, through the real command ({@code stream all}, a JVM of its own
 * per run): before the Iceberg commit, between the Iceberg commit and the checkpoint commit (for the raw
 * stream, between its two tables' commits), a SIGKILL in the middle of a run, and a checkpoint commit marker
 * deleted after a run. After each rerun every table equals an uninterrupted run over the same arrivals.
 */
class ExactlyOnceIT {
  private static final GeneratorSpec SPEC = new GeneratorSpec(77, 12_000, 6, 0.04, 0.02, 1, 0.02, 5, 0, 1,
      GeneratorSpec.DEFAULT_START, 60);

  private final TestStack stack = TestStack.get();
  private final SparkSession spark = stack.spark();
  private final StreamFixture fx = new StreamFixture(stack, "once");

  @TempDir
  Path tmp;

  private record Tables(TableName raw, TableName rejected, TableName events, TableName counts) {}

  private Tables tables(String suffix) {
    return new Tables(fx.table(TableCatalog::rawEvents, "raw_" + suffix),
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
    String bucket = TestStack.unique("once").replace('_', '-');
    stack.lakehouse().storage().ensureBucket(bucket);
    Lander lander = new Lander(stack.lakehouse().storage(), bucket, "");
    List<Arrival> arrivals = new GeneratedScenario(SPEC).arrivals();

    Tables ref = tables("ref");
    Tables test = tables("test");
    Path cpRoot = tmp.resolve("checkpoints");
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("TIDEMARK_LANDING_BUCKET", bucket);
    env.put("TIDEMARK_CHECKPOINT_ROOT", cpRoot.toString());
    env.put("TIDEMARK_TABLE_RAW_EVENTS", test.raw().toString());
    env.put("TIDEMARK_TABLE_REJECTED", test.rejected().toString());
    env.put("TIDEMARK_TABLE_EVENTS", test.events().toString());
    env.put("TIDEMARK_TABLE_EVENT_COUNTS", test.counts().toString());

    // the uninterrupted reference, in this JVM, over the same S3 prefix
    String source = lander.sourceUri(io.tidemark.land.Dataset.EVENTS);
    Runnable reference = () -> {
      RawArchive.run(spark, source, ref.raw(), ref.rejected(), tmp.resolve("ref-raw").toString());
      Dedup.run(spark, source, ref.events(), tmp.resolve("ref-dedup").toString(), Duration.ofMinutes(30),
          Dedup.Mode.WITHIN_WATERMARK);
      WindowedCounts.run(spark, source, ref.counts(), tmp.resolve("ref-counts").toString(),
          WindowedCounts.Options.seeds());
    };

    // arrival 1: a clean run
    lander.land(arrivals.get(0));
    reference.run();
    assertThat(Cli.run(env, "stream", "all").exitCode()).isZero();

    // arrival 2: counts dies between its Iceberg commit and its checkpoint commit
    lander.land(arrivals.get(1));
    reference.run();
    crashThenRerun(env, "windowed-counts:after-commit:*", "windowed-counts: ", "1 batch(es) already committed");

    // arrival 3: raw dies after its raw-table commit, before the rejected table's
    lander.land(arrivals.get(2));
    reference.run();
    crashThenRerun(env, "raw:after-commit:*", "raw: ", "1 batch(es) already committed");

    // arrival 4: dedup dies when its batch starts, before any commit
    lander.land(arrivals.get(3));
    reference.run();
    crashThenRerun(env, "dedup:before-commit:*", "dedup: ", "row(s) into " + test.events());

    // arrival 5: SIGKILL in the middle of the run, once dedup has started its batch
    lander.land(arrivals.get(4));
    reference.run();
    int next = lastBatch(cpRoot.resolve("dedup")) + 1;
    Process p = Cli.start(env, "stream", "all");
    Path started = cpRoot.resolve("dedup/offsets/" + next);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (!Files.exists(started) && p.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    p.destroyForcibly().waitFor();
    assertThat(Cli.run(env, "stream", "all").exitCode()).isZero();
    assertThat(contents(test)).as("after the SIGKILL and a rerun").isEqualTo(contents(ref));

    // a checkpoint commit marker lost after a run: the batch runs again and writes nothing twice
    Path counts = cpRoot.resolve("windowed-counts");
    int last = lastBatch(counts);
    Files.delete(counts.resolve("commits/" + last));
    Files.deleteIfExists(counts.resolve("commits/." + last + ".crc"));
    Cli.Result again = Cli.run(env, "stream", "all");
    assertThat(again.exitCode()).as("%s", again).isZero();
    assertThat(contents(test)).as("after losing a commit marker").isEqualTo(contents(ref));
    assertThat(fx.count(test.counts())).isPositive();
    assertThat(fx.strings("SELECT CAST(batch_id AS STRING) FROM (SELECT batch_id, ingest_ts FROM " + test.raw().sql()
        + " UNION ALL SELECT batch_id, ingest_ts FROM " + test.rejected().sql() + ") GROUP BY batch_id "
        + "HAVING count(DISTINCT ingest_ts) > 1"))
        .as("a batch run again after a crash keeps its ingest time, in both tables").isEmpty();
  }

  private void crashThenRerun(Map<String, String> env, String hook, String stream, String rerunSays) {
    Map<String, String> crashing = new HashMap<>(env);
    crashing.put("TIDEMARK_TEST_CRASH", hook);
    Cli.Result crash = Cli.run(crashing, "stream", "all");
    assertThat(crash.exitCode()).as("the hook %s halts the JVM: %s", hook, crash).isEqualTo(137);
    Cli.Result rerun = Cli.run(env, "stream", "all");
    assertThat(rerun.exitCode()).as("%s", rerun).isZero();
    assertThat(rerun.out().lines().filter(l -> l.startsWith(stream)).findFirst().orElse(""))
        .as("the rerun of %s", hook).contains(rerunSays);
  }

  private static int lastBatch(Path checkpoint) throws IOException {
    try (Stream<Path> s = Files.list(checkpoint.resolve("commits"))) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+")).mapToInt(Integer::parseInt)
          .max().orElse(-1);
    }
  }
}
