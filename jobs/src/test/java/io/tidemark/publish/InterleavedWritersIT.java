package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.maintain.Compaction;
import io.tidemark.stream.RunReport;
import io.tidemark.testing.Cli;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Scd2Oracle;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import io.tidemark.testing.StreamFixture;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.projectnessie.model.LogResponse.LogEntry;

/**
 * The writers of the staging branch at once: the streams of the next arrival (in this JVM) while the restatement runs
 * in a JVM of its own (it branches from the staging branch and merges back into it; a conflict with the streams'
 * commits makes it plan again on the new head), then the streams of another arrival (on another thread) while
 * compaction rewrites every table at once, again and again until they are done (a rewrite that loses the race to a
 * stream commit runs again on the new head; a stream batch whose SCD2 commit loses it settles again), with a publish
 * after each. Every publish and the restatement succeed, nothing staged stays unpublished, and main's tables at the
 * end equal the oracles over ALL events and changes: the late ones the streams dropped, which the restatement put
 * back, included.
 */
class InterleavedWritersIT extends StackTest {
  /** The seed, a change that moves the SCD2 watermark (5), then one two days late for c3 (6), as in Pipeline. */
  private static final List<Arrival> LATE = late();

  private static List<Arrival> late() {
    List<Arrival> out = new ArrayList<>(SeedScenarios.ALL.arrivals());
    out.add(new Arrival(5, List.of(LandingFile.of(SeedScenarios.COMPANIES, "later.jsonl",
        change("c9", "Nine", "gold", "2026-01-03T00:00:00Z")))));
    out.add(new Arrival(6, List.of(LandingFile.of(SeedScenarios.COMPANIES, "late.jsonl",
        change("c3", "Cog", "platinum", "2026-01-01T01:00:00Z")))));
    return out;
  }

  /** On time (after the seed and the late c3 change): windows finalized by each, companies changed by each. */
  private static final List<Arrival> ON_TIME = List.of(
      new Arrival(7, List.of(
          LandingFile.of(SeedScenarios.EVENTS, "on-time.jsonl", event(301, "c1", "00:30:00") + event(302, "c2", "00:33:00")
              + event(303, "c3", "00:41:00")),
          LandingFile.of(SeedScenarios.COMPANIES, "on-time.jsonl", change("c5", "Elm", "bronze", "2026-01-03T05:00:00Z")))),
      new Arrival(8, List.of(
          LandingFile.of(SeedScenarios.EVENTS, "on-time.jsonl", event(304, "c1", "00:50:00") + event(305, "c2", "00:55:00")
              + event(303, "c3", "00:41:00")),
          LandingFile.of(SeedScenarios.COMPANIES, "on-time.jsonl", change("c1", "Acme", "silver", "2026-01-03T06:00:00Z")))));

  private static String event(int id, String company, String time) {
    return "{\"event_id\":" + id + ",\"company_id\":\"" + company + "\",\"amount\":" + id + ".5,\"event_ts\":"
        + "\"2026-01-01T" + time + "Z\"}\n";
  }

  private static String change(String company, String name, String tier, String ts) {
    return "{\"company_id\":\"" + company + "\",\"name\":\"" + name + "\",\"tier\":\"" + tier + "\",\"change_ts\":\""
        + ts + "\"}\n";
  }

  @Test
  void arrivalsRestatementAndCompactionInterleavedPublishEverything() throws Exception {
    StagedPipeline p = new StagedPipeline(stack, "interleaved", tmp.resolve("checkpoints"));
    SeedTables t = SeedTables.of(p.config());
    List<Publisher.Result> published = new ArrayList<>();
    // the seed, a change that moves the SCD2 watermark, then one two days late: late events and a late change
    for (Arrival a : LATE) {
      p.land(a);
      p.streamAll();
      published.add(p.publish());
    }
    assertThat(rows(p, t.eventCounts())).as("the late event 7 did not count")
        .contains("c1|2026-01-01 00:00:00|4");

    // the restatement in a JVM of its own (not the suite's driver, where it would end before the streams begin);
    // the next arrival's streams once its plan is on its branch
    String runId = TestStack.unique("il").replace("_", "");
    p.land(ON_TIME.get(0));
    CompletableFuture<Cli.Result> restate = CompletableFuture.supplyAsync(
        () -> Cli.inJvm(p.env(), "restate", "--run-id", runId));
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      while (!restate.isDone() && refs.branches("").stream().noneMatch(b -> b.contains(runId))) {
        Thread.sleep(200);
      }
    }
    p.streamAll();
    Cli.Result r = restate.get(10, TimeUnit.MINUTES);
    System.out.println(r);
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).as("the restatement merged into the staging branch").contains("merged into ");
    published.add(p.publish());

    // every table compacted at once, each again and again for as long as the last arrival streams (on another
    // thread): each stream commit lands while a rewrite of its table is under way, whichever of the two commits first
    // (a compacted table's pass with no new file commits nothing, so the passes only answer the streams' commits)
    p.land(ON_TIME.get(1));
    CompletableFuture<List<RunReport>> streams = CompletableFuture.supplyAsync(p::streamAll);
    Compaction compaction = new Compaction(p.spark(), new Compaction.Options(128L << 20, 2, 5, false));
    List<Compaction.Result> c = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(t.all().size());
    try {
      List<Future<?>> passes = new ArrayList<>();
      for (io.tidemark.config.TableName table : t.all()) {
        passes.add(pool.submit(() -> {
          do {
            Compaction.Result x = compaction.compact(table);
            c.add(x);
            System.out.println(x.line(false));
          } while (!streams.isDone());
        }));
      }
      for (Future<?> f : passes) {
        f.get(10, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    streams.get(10, TimeUnit.MINUTES);
    System.out.println("compaction passes while the last arrival streamed: " + c.size() + " over " + t.all().size()
        + " tables");
    assertThat(c).as("compaction rewrote files").anyMatch(x -> x.rewrittenFiles() > 0);
    published.add(p.publish());
    published.forEach(x -> System.out.println(x.summary()));
    int n = published.size();
    System.out.println("the staging branch while the restatement ran:\n" + story(p.staging(),
        published.get(n - 3).stagedHash(), published.get(n - 2).stagedHash()));
    System.out.println("the staging branch while compaction ran:\n" + story(p.staging(),
        published.get(n - 2).stagedHash(), published.get(n - 1).stagedHash()));
    assertThat(published).as("every publish merged").allMatch(x -> x.mergeHash() != null);

    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      assertThat(refs.changedKeys(p.published(), refs.hash(p.published()).orElseThrow(), p.staging(),
          refs.hash(p.staging()).orElseThrow())).as("nothing staged is left unpublished").isEmpty();
      List<LogEntry> restated = refs.commitsWith(p.staging(), java.util.Map.of(CommitKeys.RUN_ID, runId), 100);
      System.out.println("the restatement's commits on " + p.staging() + ": " + restated.stream()
          .map(e -> e.getCommitMeta().getMessage().lines().findFirst().orElse("")).toList());
    }
    assertThat(p.publish().nothingStaged()).as("a publish with nothing staged").isTrue();

    // main against the oracles over every landed event and change
    String main = p.published();
    List<Path> events = StreamFixture.download(p.lakehouse().storage(), p.config().landingBucket(), "events/",
        tmp.resolve("events"));
    List<Path> changes = StreamFixture.download(p.lakehouse().storage(), p.config().landingBucket(), "companies/",
        tmp.resolve("companies"));
    CommitView atMain = new CommitView(p.spark(), p.config(), main, refsHash(main));
    try (DuckOracle oracle = new DuckOracle(List.of(events))) {
      assertThat(atMain.counts).as("main's windowed counts: every event, none dropped as late")
          .isEqualTo(oracle.counts(Seed.COUNTS_AGGREGATE.watermark(), Seed.COUNTS.windows().size()));
      assertThat(atMain.events).as("main's events: each landed event once")
          .isEqualTo(oracle.dedup(Seed.EVENTS_FEED.dedupWatermark()));
    }
    try (Scd2Oracle oracle = new Scd2Oracle(changes)) {
      assertThat(atMain.companies).as("main's companies: every change in its place").isEqualTo(oracle.history());
    }
    assertThat(atMain.counts).contains("c1|2026-01-01 00:00:00|6", "c1|2026-01-01 00:30:00|1");
  }

  /** The first lines of the commits of {@code ref} after {@code from} up to {@code to}, oldest first. */
  private String story(String ref, String from, String to) {
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      List<String> lines = new ArrayList<>(refs.log(ref)
          .dropWhile(e -> !e.getCommitMeta().getHash().equals(to))
          .takeWhile(e -> !e.getCommitMeta().getHash().equals(from))
          .map(e -> "  " + e.getCommitMeta().getMessage().lines().findFirst().orElse("")).toList());
      java.util.Collections.reverse(lines);
      return String.join("\n", lines);
    }
  }

  private String refsHash(String ref) {
    return stack.nessie().hash(ref);
  }

  private List<String> rows(StagedPipeline p, io.tidemark.config.TableName table) {
    return fx.strings("SELECT concat_ws('|', coalesce(company_id, 'NULL'), date_format(w_start, "
        + "'yyyy-MM-dd HH:mm:ss'), CAST(n AS STRING)) FROM " + table.namespace() + ".`" + table.table() + "@"
        + p.published() + "` ORDER BY 1");
  }
}
