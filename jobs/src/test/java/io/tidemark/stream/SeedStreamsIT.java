package io.tidemark.stream;

import io.tidemark.testing.Seed;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Landing;
import io.tidemark.testing.SqlSettings;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StreamScript;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The seeds' scenarios, landed on S3 arrival by arrival, one availableNow run per arrival, one checkpoint. In the quick
 * tier: the raw archive and its quarantine, dedup and the windowed counts, each end to end.
 */
@Tag("quick")
class SeedStreamsIT extends StackTest {
  private static final String PARTITIONS = "spark.sql.shuffle.partitions";

  SeedStreamsIT() {
    super("seeds");
  }

  @Test
  void windowIsCountedOnceAndTheLateEventIsNot() throws Exception {
    Landing landing = stack.landing("counts");
    TableName table = fx.counts("counts");
    String checkpoint = tmp.resolve("cp-counts").toString();
    StreamScript script = StreamScript.of(landing::land,
        () -> SeedContract.counts(spark, landing.source(SeedScenarios.EVENTS), table.toString(), checkpoint));
    String partitions;
    try (SqlSettings settings = SqlSettings.saving(spark, PARTITIONS)) {
      partitions = settings.original(PARTITIONS);
      script.eachArrival(SeedScenarios.COUNTS.arrivals(), a -> {
        if (a.number() == 1) {
          assertThat(fx.countRows(table)).as("no window is final before the far-future event").isEmpty();
          // a later run with another setting must keep the checkpoint's partitioning of the state
          settings.set(PARTITIONS, "7");
        }
      });
    }
    assertThat(java.nio.file.Files.readString(Path.of(checkpoint, "offsets", "4")))
        .as("shuffle partitions are fixed per checkpoint")
        .contains("\"spark.sql.shuffle.partitions\":\"" + partitions + "\"");
    assertThat(fx.countRows(table)).as("c1 [00:00,00:05) n=3, c2 n=2, each once")
        .containsExactly("c1|2026-01-01 00:00:00|3", "c2|2026-01-01 00:00:00|2");
    assertThat(script.report(2).written(table)).as("the far-future run emits the finalized windows").isEqualTo(2);
    assertThat(script.report(3).lateRowsDropped()).as("the late event of run 3").isEqualTo(1);
    assertThat(script.report(3).written(table)).isZero();
    try (DuckOracle oracle = new DuckOracle(landing.downloadEach(SeedScenarios.EVENTS, tmp))) {
      assertThat(fx.countRows(table)).isEqualTo(oracle.counts(Duration.ofMinutes(10), Duration.ofMinutes(5)));
    }

    Table iceberg = BatchCommitter.load(spark, table);
    Snapshot last = iceberg.currentSnapshot();
    assertThat(last.summary()).as("provenance of the commit")
        .containsEntry(CommitKeys.STREAM, Seed.WINDOWED_COUNTS)
        .containsEntry(CommitKeys.WATERMARK, "2026-01-01T00:10:00Z")
        .containsKey(CommitKeys.QUERY_ID)
        .containsKey(CommitKeys.BATCH_ID);
    int snapshots = 0;
    for (Snapshot s : iceberg.snapshots()) {
      snapshots++;
    }
    assertThat(snapshots).as("one commit: empty batches commit nothing").isEqualTo(1);
  }

  @Test
  void oneRowPerDistinctEventIdAcrossRuns() throws Exception {
    Landing landing = stack.landing("dedup");
    TableName table = fx.events("events");
    String checkpoint = tmp.resolve("cp-dedup").toString();
    StreamScript script = StreamScript.of(landing::land,
        () -> SeedContract.dedup(spark, landing.source(SeedScenarios.EVENTS), table.toString(), checkpoint))
        .eachArrival(SeedScenarios.DEDUP.arrivals());
    assertThat(fx.strings("SELECT CAST(event_id AS STRING) FROM " + table.sql() + " ORDER BY event_id"))
        .containsExactly("101", "102", "103", "104", "105", "106");
    assertThat(script.runs().stream().mapToLong(r -> r.get(0).duplicatesDropped()).sum()).as("10 lines, 6 ids")
        .isEqualTo(4);
    try (DuckOracle oracle = new DuckOracle(landing.downloadEach(SeedScenarios.EVENTS, tmp))) {
      assertThat(fx.eventRows(table)).isEqualTo(oracle.dedup(Duration.ofMinutes(30)));
    }
  }

  /**
   * One rule of validity for every stream, whichever columns a stream's query uses (counts use no amount, and Spark's
   * JSON reader parses only the columns a query needs): a line whose optional field does not convert is valid for
   * all of them, with that field null and its value kept in the raw archive's rescued data; a line whose required
   * field does not convert is quarantined and counted by none.
   */
  @Test
  void anOptionalFieldThatDoesNotConvertIsRescuedAndTheLineCountedByEveryStream() throws Exception {
    Landing landing = stack.landing("badfield").land(new Arrival(1, List.of(LandingFile.of(SeedScenarios.EVENTS, "a.jsonl",
        """
        {"event_id":1,"company_id":"c1","amount":1.5,"event_ts":"2026-01-01T00:01:00Z"}
        {"event_id":2,"company_id":"c1","amount":"n/a","event_ts":"2026-01-01T00:02:00Z"}
        {"event_id":3,"company_id":"c1","amount":2,"event_ts":"2026-01-01T01:00:00Z"}
        {"event_id":4,"company_id":"c1","amount":2,"event_ts":"soon"}
        """))));
    String source = landing.source(SeedScenarios.EVENTS);
    TableName raw = fx.rawEvents("badfield_raw");
    TableName rejected = fx.table(TableCatalog::rejected, "badfield_rejected");
    TableName counts = fx.counts("badfield_counts");
    TableName events = fx.events("badfield_events");
    SeedContract.raw(spark, source, raw, rejected, tmp.resolve("cp-raw").toString());
    SeedContract.counts(spark, source, counts.toString(), tmp.resolve("cp-counts").toString());
    SeedContract.dedup(spark, source, events.toString(), tmp.resolve("cp-dedup").toString());
    assertThat(fx.strings("SELECT reason FROM " + rejected.sql())).as("a required field that does not convert")
        .containsExactly("event_ts is not a timestamp: soon");
    assertThat(fx.strings("SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(CAST(amount AS STRING), 'NULL'), "
        + "coalesce(rescued_data, 'NULL')) FROM " + raw.sql() + " ORDER BY event_id"))
        .containsExactly("1|1.5|NULL", "2|NULL|{\"amount\":\"n/a\"}", "3|2.0|NULL");
    assertThat(fx.countRows(counts)).as("the window counts both events in it")
        .containsExactly("c1|2026-01-01 00:00:00|2");
    assertThat(fx.strings("SELECT CAST(event_id AS STRING) FROM " + events.sql() + " ORDER BY event_id"))
        .containsExactly("1", "2", "3");
  }

  @Test
  void rerunWithNothingNewWritesNothing() {
    Landing landing = stack.landing("rerun").land(SeedScenarios.COUNTS.arrivals());
    TableName table = fx.counts("rerun");
    String checkpoint = tmp.resolve("cp-rerun").toString();
    SeedContract.counts(spark, landing.source(SeedScenarios.EVENTS), table.toString(), checkpoint);
    String head = stack.nessie().hash(stack.config().nessieRef());
    RunReport again = SeedContract.counts(spark, landing.source(SeedScenarios.EVENTS), table.toString(), checkpoint);
    assertThat(again.inputRows()).isZero();
    assertThat(again.rowsWritten().values()).as("rows written").allMatch(n -> n == 0);
    assertThat(stack.nessie().hash(stack.config().nessieRef())).as("no commit on the staging branch").isEqualTo(head);
    assertThat(fx.countRows(table)).hasSize(2);
  }
}
