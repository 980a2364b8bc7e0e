package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.config.TableName;
import io.tidemark.core.CommitKeys;
import io.tidemark.fence.OffsetLog;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.report.ArrivalRuns;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * The stream-batches table on the real stack: the seed's arrivals through {@code stream all}, its numbers per arrival
 * against what the scenario's lines say; every batch recorded once through a crash, a kill and a lost checkpoint
 * commit; and read through {@code tidemark sql} on the branch the streams write and on a branch cut from it.
 */
class StreamBatchesIT extends StackTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> EVENT_STREAMS = List.of(Seed.RAW, Seed.DEDUP, Seed.WINDOWED_COUNTS);
  private static final List<String> CHANGE_STREAMS = List.of(Seed.RAW_COMPANIES, Seed.SCD2);

  StreamBatchesIT() {
    super("batches");
  }

  @Test
  void theSeedsNumbersPerArrivalAreWhatItsLinesSay() throws Exception {
    Pipeline p = new Pipeline(stack, "batches", tmp.resolve("cp"));
    SeedTables t = SeedTables.of(p.config());
    List<Arrival> arrivals = SeedScenarios.ALL.arrivals();
    arrivals.subList(0, 3).forEach(p::arrive);
    String branch = TestStack.unique("batches_after_3");
    spark.sql("CREATE BRANCH `" + branch + "` IN nessie FROM `" + stack.config().nessieRef() + "`");
    long recordedAtBranch = StreamBatches.read(spark, t.streamBatches()).size();
    p.arrive(arrivals.get(3));
    List<BatchRecord> records = StreamBatches.read(spark, t.streamBatches());

    Map<Integer, Map<String, Long>> input = new TreeMap<>();
    Map<Integer, Map<String, Long>> late = new TreeMap<>();
    Map<Integer, Map<String, Long>> duplicates = new TreeMap<>();
    ArrivalRuns.of(records, p.config().pipeline().streamNames()).forEach((arrival, runs) -> runs.forEach(r -> {
      input.computeIfAbsent(arrival, k -> new TreeMap<>()).put(r.stream(), r.inputRows());
      late.computeIfAbsent(arrival, k -> new TreeMap<>()).put(r.stream(), r.lateRowsDropped());
      duplicates.computeIfAbsent(arrival, k -> new TreeMap<>()).put(r.stream(), r.duplicatesDropped());
    }));
    Oracle oracle = new Oracle(arrivals);
    assertThat(oracle.lateForCounts(3)).as("the late events the demo names").containsExactly(7, 101, 106);
    assertThat(input).as("lines read per arrival and stream").isEqualTo(oracle.input());
    Map<Integer, Map<String, Long>> expectedLate = oracle.input();
    // the counts drop a late partial count per window and company, the dedup late events, the SCD2 stream late
    // changes; the raw archives have no watermark
    expectedLate.forEach((a, streams) -> streams.replaceAll((stream, lines) ->
        stream.equals(Seed.WINDOWED_COUNTS) ? oracle.latePartialCounts(a)
            : stream.equals(Seed.DEDUP) ? (long) oracle.lateEvents(a, Duration.ofMinutes(30)).size()
            : stream.equals(Seed.SCD2) ? oracle.lateChanges(a, Duration.ofDays(1))
            : 0L));
    assertThat(late).as("late rows dropped per arrival and stream").isEqualTo(expectedLate);
    assertThat(late.get(3)).containsEntry(Seed.WINDOWED_COUNTS, 2L);
    for (int a = 1; a <= 3; a++) {
      assertThat(duplicates.get(a)).as("arrival %d", a).containsEntry(Seed.DEDUP, oracle.repeatedIds(a));
    }

    assertEveryBatchRecordedOnce(p, records);
    assertThat(records).as("nothing to recover or replay in runs that all ended")
        .noneMatch(BatchRecord::recovered).noneMatch(BatchRecord::replayed);
    BatchRecord finalizing = records.stream().filter(r -> r.stream().equals(Seed.WINDOWED_COUNTS)
        && r.rowsWritten().getOrDefault(t.eventCounts().toString(), 0L) > 0).findFirst().orElseThrow();
    assertThat(finalizing.arrival()).as("the batch that only moves the watermark on read no arrival").isNull();
    assertThat(finalizing.watermarkBefore()).isEqualTo(Instant.parse("2026-01-01T00:10:00Z"));
    // the counts' state after it: the one window still open, [00:20, 00:25) of c1 (event 6); the five it finalized
    // were evicted
    assertThat(finalizing.stateRows()).as("windows left in the counts' state").isEqualTo(1L);

    // the check prints the same lines from the table
    Cli.Result check = Cli.inProcess(p.env(), "check");
    assertThat(check.exitCode()).as("%s", check).isZero();
    assertThat(check.out()).contains("stream runs per arrival, as recorded in " + t.streamBatches())
        .contains("arrival 3:\n").contains("  windowed-counts: 1 batch(es), 3 lines read, 0 row(s) into "
            + t.eventCounts() + ", 2 late partial count(s) dropped, watermark 2026-01-01T00:10:00Z");

    // tidemark sql reads the table on the streams' branch and on the branch cut after arrival 3
    String columns = "SELECT stream, batch_id, input_rows, rows_written, late_rows_dropped FROM ";
    JsonNode onMain = sqlJson(p, columns + t.streamBatches());
    JsonNode onBranch = sqlJson(p, columns + t.streamBatches() + "@" + branch);
    assertThat(onMain).hasSize(records.size());
    assertThat(onBranch).hasSize((int) recordedAtBranch).hasSizeLessThan(records.size());
    assertThat(onBranch.toString()).contains("\"late_rows_dropped\":2");
  }

  @Test
  void aCrashAKillAndALostCheckpointCommitLeaveEveryBatchRecordedOnce() throws Exception {
    Path checkpoints = tmp.resolve("checkpoints");
    Pipeline p = new Pipeline(stack, "batches_crash", checkpoints);
    Map<String, String> env = p.env();
    List<Arrival> arrivals = SeedScenarios.ALL.arrivals();

    p.lander().land(arrivals.get(0));
    assertThat(Cli.inProcess(env, "stream", "all").exitCode()).isZero();

    // arrival 2: the counts die right after committing their finalized windows (the trailing batch), before the
    // checkpoint commit: the rerun finds the commit (replayed) and records the arrival's batch the crash left out
    p.lander().land(arrivals.get(1));
    Cli.Result crash = Cli.run(Cli.crashing(env, "windowed-counts:after-commit:*"), "stream", "all");
    assertThat(crash.exitCode()).as("%s", crash).isEqualTo(137);
    Cli.Result rerun = Cli.inProcess(env, "stream", "all");
    assertThat(rerun.exitCode()).as("%s", rerun).isZero();
    assertThat(rerun.out()).contains("1 batch(es) already committed");

    // arrival 3: SIGKILL once dedup has started its batch
    p.lander().land(arrivals.get(2));
    long next = OffsetLog.lastPlanned(spark, checkpoints.resolve(Seed.DEDUP).toString()) + 1;
    Process kill = Cli.start(env, "stream", "all");
    Path started = checkpoints.resolve(Seed.DEDUP + "/offsets/" + next);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (!Files.exists(started) && kill.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    kill.destroyForcibly().waitFor();
    assertThat(Cli.inProcess(env, "stream", "all").exitCode()).isZero();

    // the counts' last checkpoint commit lost: Spark runs that batch again
    Path counts = checkpoints.resolve(Seed.WINDOWED_COUNTS);
    long last = OffsetLog.lastCommitted(spark, counts.toString());
    Files.delete(counts.resolve("commits/" + last));
    Files.deleteIfExists(counts.resolve("commits/." + last + ".crc"));
    p.arrive(arrivals.get(3));

    SeedTables t = SeedTables.of(p.config());
    List<BatchRecord> records = StreamBatches.read(spark, t.streamBatches());
    assertEveryBatchRecordedOnce(p, records);
    assertThat(records).as("the batch the crash cut short, run again").anyMatch(r -> r.replayed()
        && r.stream().equals(Seed.WINDOWED_COUNTS)
        && r.rowsWritten().getOrDefault(t.eventCounts().toString(), 0L) == 5);
    assertThat(records).as("batches the crash ended before they were recorded").anyMatch(BatchRecord::recovered);
    // rows of a recovered raw batch are its input: every line is archived or quarantined
    Map<Integer, Long> rawInput = new TreeMap<>();
    records.stream().filter(r -> r.stream().equals(Seed.RAW) && r.arrival() != null)
        .forEach(r -> rawInput.merge(r.arrival(), r.inputRows(), Long::sum));
    Map<Integer, Long> expected = new TreeMap<>();
    new Oracle(arrivals).input().forEach((a, streams) -> {
      if (streams.containsKey(Seed.RAW)) {
        expected.put(a, streams.get(Seed.RAW));
      }
    });
    assertThat(rawInput).as("raw archive lines per arrival").isEqualTo(expected);
  }

  /**
   * One record per query and batch; every batch a stream's checkpoint holds committed is recorded; each commit a
   * record names is in its table's history with the record's query and batch id; and for each append-only table the
   * rows the records say were written are the rows it holds.
   */
  private void assertEveryBatchRecordedOnce(Pipeline p, List<BatchRecord> records) throws IOException {
    List<String> keys = records.stream().map(r -> r.queryId() + "/" + r.batchId()).toList();
    assertThat(new HashSet<>(keys)).as("one row per query and batch").hasSameSizeAs(keys);
    for (StreamSpec s : StreamSpec.all(p.config())) {
      Set<Long> recorded = records.stream().filter(r -> r.stream().equals(s.name())).map(BatchRecord::batchId)
          .collect(Collectors.toSet());
      assertThat(recorded).as("%s: every batch its checkpoint committed", s.name())
          .containsAll(committedBatches(Path.of(s.checkpoint())));
    }
    SeedTables t = SeedTables.of(p.config());
    Map<String, Table> tables = new java.util.HashMap<>();
    for (BatchRecord r : records) {
      r.snapshots().forEach((name, id) -> {
        Snapshot s = tables.computeIfAbsent(name, n -> IcebergTables.load(spark, TableName.parse(n))).snapshot(id);
        assertThat(s).as("%s batch %d: snapshot %d of %s", r.stream(), r.batchId(), id, name).isNotNull();
        assertThat(s.summary()).containsEntry(CommitKeys.QUERY_ID, r.queryId())
            .containsEntry(CommitKeys.BATCH_ID, Long.toString(r.batchId()));
      });
    }
    for (TableName table : List.of(t.rawEvents(), t.rejected(), t.rawCompanyChanges(), t.events(), t.eventCounts(),
        t.companyChanges())) {
      long said = records.stream().mapToLong(r -> r.rowsWritten().getOrDefault(table.toString(), 0L)).sum();
      assertThat(said).as("rows written into %s, as recorded", table).isEqualTo(fx.count(table));
    }
  }

  private static Set<Long> committedBatches(Path checkpoint) throws IOException {
    try (Stream<Path> s = Files.list(checkpoint.resolve("commits"))) {
      return s.map(f -> f.getFileName().toString()).filter(n -> n.matches("\\d+")).map(Long::valueOf)
          .collect(Collectors.toSet());
    }
  }

  private JsonNode sqlJson(Pipeline p, String query) throws IOException {
    Cli.Result r = Cli.inProcess(p.env(), "sql", "--format", "json", query);
    assertThat(r.exitCode()).as("%s", r).isZero();
    return JSON.readTree(r.out());
  }

  /**
   * What the scenario's lines say, worked out here from the lines alone: lines per arrival, and which rows the
   * watermarks make late. A batch drops rows against the watermark the batch before it set: the newest time of the
   * earlier arrivals less the delay; the counts drop an event whose window ended by then.
   */
  private static final class Oracle {
    private final Map<Integer, List<JsonNode>> events = new TreeMap<>();
    private final Map<Integer, List<JsonNode>> changes = new TreeMap<>();

    Oracle(List<Arrival> arrivals) throws IOException {
      for (Arrival a : arrivals) {
        events.put(a.number(), new ArrayList<>());
        changes.put(a.number(), new ArrayList<>());
        for (LandingFile f : a.files()) {
          for (String line : new String(f.content(), StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
              (f.feed().equals(SeedScenarios.EVENTS) ? events : changes).get(a.number()).add(JSON.readTree(line));
            }
          }
        }
      }
    }

    /** Lines per arrival for each stream that reads them (an arrival without a feed's lines runs no batch). */
    Map<Integer, Map<String, Long>> input() {
      Map<Integer, Map<String, Long>> out = new TreeMap<>();
      for (int a : events.keySet()) {
        Map<String, Long> streams = new TreeMap<>();
        for (String s : events.get(a).isEmpty() ? List.<String>of() : EVENT_STREAMS) {
          streams.put(s, (long) events.get(a).size());
        }
        for (String s : changes.get(a).isEmpty() ? List.<String>of() : CHANGE_STREAMS) {
          streams.put(s, (long) changes.get(a).size());
        }
        out.put(a, streams);
      }
      return out;
    }

    private static Instant time(JsonNode n, String field) {
      return Instant.parse(n.get(field).asText());
    }

    private Instant newestBefore(Map<Integer, List<JsonNode>> feed, int arrival, String field) {
      return feed.entrySet().stream().filter(e -> e.getKey() < arrival).flatMap(e -> e.getValue().stream())
          .map(n -> time(n, field)).max(Instant::compareTo).orElse(null);
    }

    /** Event ids of the arrival at or behind the watermark {@code delay} behind the earlier arrivals. */
    List<Integer> lateEvents(int arrival, Duration delay) {
      Instant newest = newestBefore(events, arrival, "event_ts");
      return newest == null ? List.of() : events.get(arrival).stream()
          .filter(n -> !time(n, "event_ts").isAfter(newest.minus(delay))).map(n -> n.get("event_id").asInt())
          .sorted().toList();
    }

    /** Event ids of the arrival whose 5-minute window ended by the counts' watermark (10 minutes). */
    List<Integer> lateForCounts(int arrival) {
      return lateCountEvents(arrival).stream().map(n -> n.get("event_id").asInt()).sorted().toList();
    }

    /** The windows and companies of those events: one partial count each. */
    long latePartialCounts(int arrival) {
      return lateCountEvents(arrival).stream().map(n -> n.get("company_id").asText() + "@" + windowEnd(n))
          .distinct().count();
    }

    private List<JsonNode> lateCountEvents(int arrival) {
      Instant newest = newestBefore(events, arrival, "event_ts");
      return newest == null ? List.of() : events.get(arrival).stream()
          .filter(n -> !windowEnd(n).isAfter(newest.minus(Duration.ofMinutes(10)))).toList();
    }

    private static Instant windowEnd(JsonNode n) {
      long s = time(n, "event_ts").getEpochSecond();
      return Instant.ofEpochSecond(s - Math.floorMod(s, 300) + 300);
    }

    long lateChanges(int arrival, Duration delay) {
      Instant newest = newestBefore(changes, arrival, "change_ts");
      return newest == null ? 0 : changes.get(arrival).stream()
          .filter(n -> !time(n, "change_ts").isAfter(newest.minus(delay))).count();
    }

    /** Lines of the arrival whose event id came before (in it, or in an earlier one). */
    long repeatedIds(int arrival) {
      Set<Integer> seen = new HashSet<>();
      events.entrySet().stream().filter(e -> e.getKey() < arrival).flatMap(e -> e.getValue().stream())
          .forEach(n -> seen.add(n.get("event_id").asInt()));
      return events.get(arrival).stream().filter(n -> !seen.add(n.get("event_id").asInt())).count();
    }
  }
}
