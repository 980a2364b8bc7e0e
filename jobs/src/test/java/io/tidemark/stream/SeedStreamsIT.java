package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.Dataset;
import io.tidemark.land.Lander;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seeds' scenarios, landed on S3 arrival by arrival, one availableNow run per arrival, one checkpoint. */
class SeedStreamsIT {
  private final TestStack stack = TestStack.get();
  private final SparkSession spark = stack.spark();
  private final Storage storage = stack.lakehouse().storage();
  private final String bucket = stack.config().landingBucket();
  private final StreamFixture fx = new StreamFixture(stack, "seeds");

  @TempDir
  Path tmp;

  @Test
  void windowIsCountedOnceAndTheLateEventIsNot() throws Exception {
    String prefix = TestStack.unique("counts");
    Lander lander = new Lander(storage, bucket, prefix);
    TableName table = fx.counts("counts");
    String checkpoint = tmp.resolve("cp-counts").toString();
    List<List<Path>> runs = new ArrayList<>();
    List<RunReport> reports = new ArrayList<>();
    String partitions = spark.conf().get("spark.sql.shuffle.partitions");
    try {
      for (Arrival a : SeedScenarios.COUNTS.arrivals()) {
        lander.land(a);
        runs.add(StreamFixture.download(storage, bucket, prefix + "/" + Arrival.dir(Dataset.EVENTS, a.number()), tmp));
        reports.add(WindowedCounts.run(spark, lander.sourceUri(Dataset.EVENTS), table.toString(), checkpoint));
        if (a.number() == 1) {
          assertThat(fx.countRows(table)).as("no window is final before the far-future event").isEmpty();
          // a later run with another setting must keep the checkpoint's partitioning of the state
          spark.conf().set("spark.sql.shuffle.partitions", "7");
        }
      }
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", partitions);
    }
    assertThat(java.nio.file.Files.readString(Path.of(checkpoint, "offsets", "4")))
        .as("shuffle partitions are fixed per checkpoint")
        .contains("\"spark.sql.shuffle.partitions\":\"" + partitions + "\"");
    assertThat(fx.countRows(table)).as("c1 [00:00,00:05) n=3, c2 n=2, each once")
        .containsExactly("c1|2026-01-01 00:00:00|3", "c2|2026-01-01 00:00:00|2");
    assertThat(reports.get(1).written(table)).as("the far-future run emits the finalized windows").isEqualTo(2);
    assertThat(reports.get(2).lateRowsDropped()).as("the late event of run 3").isEqualTo(1);
    assertThat(reports.get(2).written(table)).isZero();
    try (DuckOracle oracle = new DuckOracle(runs)) {
      assertThat(fx.countRows(table)).isEqualTo(oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5)));
    }

    Table iceberg = BatchCommitter.load(spark, table);
    Snapshot last = iceberg.currentSnapshot();
    assertThat(last.summary()).as("provenance of the commit")
        .containsEntry(Provenance.STREAM, WindowedCounts.NAME)
        .containsEntry(Provenance.WATERMARK, "2026-01-01T00:10:00Z")
        .containsKey(Provenance.QUERY_ID)
        .containsKey(Provenance.BATCH_ID);
    int snapshots = 0;
    for (Snapshot s : iceberg.snapshots()) {
      snapshots++;
    }
    assertThat(snapshots).as("one commit: empty batches commit nothing").isEqualTo(1);
  }

  @Test
  void oneRowPerDistinctEventIdAcrossRuns() throws Exception {
    String prefix = TestStack.unique("dedup");
    Lander lander = new Lander(storage, bucket, prefix);
    TableName table = fx.events("events");
    String checkpoint = tmp.resolve("cp-dedup").toString();
    List<List<Path>> runs = new ArrayList<>();
    long duplicatesDropped = 0;
    for (Arrival a : SeedScenarios.DEDUP.arrivals()) {
      lander.land(a);
      runs.add(StreamFixture.download(storage, bucket, prefix + "/" + Arrival.dir(Dataset.EVENTS, a.number()), tmp));
      duplicatesDropped += Dedup.run(spark, lander.sourceUri(Dataset.EVENTS), table.toString(), checkpoint)
          .duplicatesDropped();
    }
    assertThat(fx.strings("SELECT CAST(event_id AS STRING) FROM " + table.sql() + " ORDER BY event_id"))
        .containsExactly("101", "102", "103", "104", "105", "106");
    assertThat(duplicatesDropped).as("10 lines, 6 ids").isEqualTo(4);
    try (DuckOracle oracle = new DuckOracle(runs)) {
      assertThat(fx.eventRows(table)).isEqualTo(oracle.dedup(Duration.ofMinutes(30)));
    }
  }

  @Test
  void rerunWithNothingNewWritesNothing() {
    String prefix = TestStack.unique("rerun");
    Lander lander = new Lander(storage, bucket, prefix);
    SeedScenarios.COUNTS.arrivals().forEach(lander::land);
    TableName table = fx.counts("rerun");
    String checkpoint = tmp.resolve("cp-rerun").toString();
    WindowedCounts.run(spark, lander.sourceUri(Dataset.EVENTS), table.toString(), checkpoint);
    String head = stack.nessie().hash("main");
    RunReport again = WindowedCounts.run(spark, lander.sourceUri(Dataset.EVENTS), table.toString(), checkpoint);
    assertThat(again.inputRows()).isZero();
    assertThat(again.rowsWritten().values()).as("rows written").allMatch(n -> n == 0);
    assertThat(stack.nessie().hash("main")).as("no commit on main").isEqualTo(head);
    assertThat(fx.countRows(table)).hasSize(2);
  }
}
