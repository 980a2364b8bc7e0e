package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.land.SeedScenarios;
import io.tidemark.restate.Restatement;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Pipeline;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.SparkCluster;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline on a real standalone cluster (a master and two workers in processes of their own, see
 * {@link SparkCluster}) through infra/spark/submit, checkpoints under s3a:// on the S3 server, the services reached
 * as external ones (keys in the driver's environment only), in steps: the seed through {@code demo} (bootstrap, each
 * arrival landed and run through every stream, the restatement), then a generated arrival whose run loses a worker
 * and its executor (SIGKILL) in dedup's batch, then its driver (SIGKILL) in the counts' batch, and runs again. After
 * each step every table equals a local run of the same arrivals in this JVM (local[2], local checkpoints). Then: no
 * key in ps, nor in any log.
 */
@Steps
class SparkClusterIT extends StackTest {
  /** An arrival of 20k events: batches that take seconds on the cluster, small for a 2-core machine. */
  private static final GeneratorSpec SPEC = new GeneratorSpec(12, 20_000, 20, 0.04, 0.02, 1, 0.02, 1, 0, 1,
      Instant.parse("2026-01-02T00:00:00Z"), 60);

  private final SparkCluster cluster = SparkCluster.get();
  private long t0;
  private String cpPrefix;
  private String warehouse;
  private TidemarkConfig config;
  private Path noLocalCheckpoints;
  private Path home;
  private Map<String, String> env;
  private List<String> secrets;
  private Storage storage;
  /** The local reference: the same arrivals in this JVM, on tables, a bucket and checkpoints of its own. */
  private Pipeline ref;
  private PsSampler ps;

  SparkClusterIT() {
    super("cluster");
  }

  @BeforeAll
  void aPipelineForTheClusterAndOneInThisJvm(@TempDir Path dir) throws IOException {
    t0 = System.nanoTime();
    String name = TestStack.unique("cluster");
    cpPrefix = "checkpoints/" + name + "/";
    warehouse = stack.config().warehouseBucket();
    noLocalCheckpoints = dir.resolve("no-local-checkpoints");
    config = stack.config().scoped(name, noLocalCheckpoints)
        .with(Map.of(Setting.CHECKPOINT_ROOT, "s3a://" + warehouse + "/" + cpPrefix));
    home = Files.createDirectories(dir.resolve("cluster-home"));
    env = externalServices(config, home);
    secrets = List.of(stack.endpoints().s3AccessKey().reveal(), stack.endpoints().s3SecretKey().reveal());
    storage = stack.lakehouse().storage();
    ref = new Pipeline(stack, "clusterref", dir.resolve("ref-checkpoints"));
    ps = new PsSampler();
  }

  @AfterAll
  void stopSampling() throws InterruptedException {
    ps.close();
    System.out.printf("[cluster] SparkClusterIT's steps took %.1f s%n", (System.nanoTime() - t0) / 1e9);
  }

  /**
   * The seed: bootstrap, each arrival landed and run through every stream, the restatement, in one submit; the
   * local reference of the same arrivals meanwhile (other tables, bucket and checkpoints; Nessie commits of
   * different tables do not conflict), as the submit spends much of its time waiting on processes.
   */
  @Test
  @Order(1)
  void theSeedThroughDemoEqualsTheLocalRunAndItsRestatement() throws Exception {
    SparkCluster.Submission demoRun = cluster.submit(env, "demo");
    for (Arrival a : SeedScenarios.ALL.arrivals()) {
      ref.arrive(a);
    }
    Restatement.Result restated = new Restatement(ref.lakehouse(), Restatement.Options.defaults(ref.config())
        .withPrefix(TestStack.unique("clusterref") + "-")).run();
    assertThat(restated.merged()).as("the local restatement: %s", restated.checks()).isTrue();
    Cli.Result demo = demoRun.result();
    assertThat(demo.exitCode()).as("%s", demo).isZero();
    assertThat(demo.out()).contains("window [2026-01-01 00:00,00:05) c1 finalized: n=4",
        "window 2026-01-01T00:00:00Z c1: n 4 -> 6", "PASS windowed-counts: DuckDB recount from the raw archive")
        .containsPattern("merged into " + config.stagingBranch() + " \\([0-9a-f]+\\), tagged restated-");
    assertSameTables(SeedTables.of(config), SeedTables.of(ref.config()), "the seed and its restatement");
    assertThat(fx.countRows(SeedTables.of(config).eventCounts())).as("restated on the cluster")
        .contains("c1|2026-01-01 00:00:00|6");
    assertThat(storage.list(warehouse, cpPrefix).stream().map(Storage.ObjectInfo::key))
        .as("checkpoints on S3").anyMatch(k -> k.startsWith(cpPrefix + "dedup/offsets/"))
        .anyMatch(k -> k.startsWith(cpPrefix + "windowed-counts/state/"))
        .anyMatch(k -> k.startsWith(cpPrefix + "scd2/commits/"));
    assertThat(noLocalCheckpoints).doesNotExist();
  }

  /** One run loses worker 1 with its executor in dedup's batch, then its driver in the counts' batch; a rerun. */
  @Test
  @Order(2)
  void aRunThatLosesAWorkerAndItsDriverEqualsTheLocalRunOnceRunAgain() throws InterruptedException {
    Lander lander = new Lander(storage, config.landingBucket(), "");
    Arrival generated = new Arrival(SeedScenarios.ALL.arrivals().size() + 1,
        new GeneratedScenario(SPEC, Seed.PIPELINE).arrivals().get(0).files());
    lander.land(generated);
    ref.arrive(generated);
    long dedupBatch = batches(storage, warehouse, cpPrefix + "dedup/offsets/") + 1;
    Process run = cluster.start(env, cluster.dir().resolve("faults.out"), cluster.dir().resolve("faults.err"),
        "stream", "all");
    awaitBatch(run, storage, warehouse, cpPrefix + "dedup/offsets/", dedupBatch);
    cluster.killWorker(1);
    long countsBatch = batches(storage, warehouse, cpPrefix + "windowed-counts/offsets/") + 1;
    awaitBatch(run, storage, warehouse, cpPrefix + "windowed-counts/offsets/", countsBatch);
    boolean survivedWorker = run.isAlive() && batches(storage, warehouse, cpPrefix + "dedup/commits/") >= dedupBatch;
    System.out.println("[cluster] after losing worker 1, the run " + (survivedWorker
        ? "committed dedup's batch on worker 2 and went on" : "ended with exit " + exitOf(run)));
    run.destroyForcibly().waitFor();
    Cli.Result rerun = cluster.run(env, "stream", "all");
    assertThat(rerun.exitCode()).as("the rerun after losing a worker and the driver: %s", rerun).isZero();
    assertSameTables(SeedTables.of(config), SeedTables.of(ref.config()),
        "after losing a worker and the driver mid-run");
    assertThat(fx.strings("SELECT CAST(count(*) - count(DISTINCT event_id) AS STRING) FROM "
        + SeedTables.of(config).events().sql())).as("no duplicate").containsExactly("0");
  }

  /** Credentials: never on a command line of the driver, the executors, the master or the workers. */
  @Test
  @Order(3)
  void noKeyOnAnyCommandLine() throws InterruptedException {
    ps.close();
    assertThat(ps.lines()).as("ps saw the driver and the executors")
        .anyMatch(l -> l.contains("io.tidemark.cli.Tidemark"))
        .anyMatch(l -> l.contains("CoarseGrainedExecutorBackend"));
    for (String secret : secrets) {
      assertThat(ps.lines()).as("ps output").noneMatch(l -> l.contains(secret));
    }
  }

  /** Credentials: never in a log of the driver, the executors, the master or the workers. */
  @Test
  @Order(4)
  void noKeyInAnyLog() throws IOException {
    List<Path> logs = files(cluster.dir(), home);
    assertThat(logs).as("executor logs of both workers")
        .anyMatch(p -> p.startsWith(cluster.workDir(1)) && p.endsWith("stderr"))
        .anyMatch(p -> p.startsWith(cluster.workDir(2)) && p.endsWith("stderr"));
    for (Path log : logs) {
      String text = Files.readString(log, StandardCharsets.ISO_8859_1);
      for (String secret : secrets) {
        assertThat(text).as("%s", log).doesNotContain(secret);
      }
    }
  }

  /** The pipeline's settings with the stack's services as external ones: URLs and keys in the environment. */
  private Map<String, String> externalServices(TidemarkConfig config, Path home) {
    Map<String, String> env = new HashMap<>(stack.env(config));
    env.keySet().removeIf(k -> k.endsWith("_PORT"));
    env.put(Setting.HOME.env(), home.toString());
    env.put(Setting.NESSIE_URI.env(), stack.endpoints().nessieApi().toString());
    env.put(Setting.S3_ENDPOINT.env(), stack.endpoints().s3Endpoint().toString());
    env.put(Setting.S3_ACCESS_KEY.env(), stack.endpoints().s3AccessKey().reveal());
    env.put(Setting.S3_SECRET_KEY.env(), stack.endpoints().s3SecretKey().reveal());
    return env;
  }

  /** Waits until the run wrote the offsets of {@code batch} under {@code offsets} (or ended). */
  private static void awaitBatch(Process run, Storage storage, String bucket, String offsets, long batch)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (batches(storage, bucket, offsets) < batch && run.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(batches(storage, bucket, offsets) >= batch || !run.isAlive())
        .as("the run started batch %d of %s within 300 s", batch, offsets).isTrue();
  }

  private static String exitOf(Process p) {
    return p.isAlive() ? "(still running)" : Integer.toString(p.exitValue());
  }

  private static long batches(Storage storage, String bucket, String offsetsPrefix) {
    return storage.list(bucket, offsetsPrefix).stream().map(o -> o.key().substring(offsetsPrefix.length()))
        .filter(n -> n.matches("\\d+")).mapToLong(Long::parseLong).max().orElse(-1);
  }

  /** Table by table, naming the rows one side has more of than the other. */
  private void assertSameTables(SeedTables actual, SeedTables expected, String when) {
    Map<String, List<String>> a = contents(actual);
    Map<String, List<String>> e = contents(expected);
    a.forEach((table, rows) -> {
      List<String> missing = new ArrayList<>(e.get(table));
      rows.forEach(missing::remove);
      List<String> extra = new ArrayList<>(rows);
      e.get(table).forEach(extra::remove);
      assertThat(missing).as("%s: rows of %s missing (%d)", when, table, missing.size()).isEmpty();
      assertThat(extra).as("%s: rows of %s in surplus (%d)", when, table, extra.size()).isEmpty();
    });
    assertThat(e.get("events")).as("%s: something to compare", when).isNotEmpty();
  }

  /** What the tables hold, but for ingest times, source buckets and run ids, which differ between pipelines. */
  private Map<String, List<String>> contents(SeedTables t) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    out.put("raw", fx.strings("SELECT concat_ws('|', CAST(event_id AS STRING), company_id, CAST(amount AS STRING), "
        + "CAST(event_ts AS STRING), CAST(arrival AS STRING), CAST(batch_id AS STRING)) FROM " + t.rawEvents().sql()
        + " ORDER BY 1"));
    out.put("rejected", fx.strings("SELECT concat_ws('|', dataset, line, reason, CAST(arrival AS STRING), "
        + "CAST(batch_id AS STRING)) FROM " + t.rejected().sql() + " ORDER BY 1"));
    out.put("events", fx.eventRows(t.events()));
    out.put("counts", fx.countRows(t.eventCounts()));
    out.put("company_changes", fx.strings("SELECT concat_ws('|', company_id, name, tier, CAST(change_ts AS STRING), "
        + "CAST(deleted AS STRING), CAST(arrival AS STRING)) FROM " + t.rawCompanyChanges().sql() + " ORDER BY 1"));
    out.put("companies", fx.historyRows(t.companies()));
    out.put("changes_applied", fx.strings("SELECT concat_ws('|', company_id, name, tier, CAST(change_ts AS STRING), "
        + "CAST(deleted AS STRING)) FROM " + t.companyChanges().sql() + " ORDER BY 1"));
    out.put("restatement_log", fx.strings("SELECT concat_ws('|', correction, substring_index(target_table, '.', -1), "
        + "key, old_value, new_value) FROM " + t.restatementLog().sql() + " ORDER BY 1"));
    return out;
  }

  private static List<Path> files(Path... roots) throws IOException {
    List<Path> out = new ArrayList<>();
    for (Path root : roots) {
      try (Stream<Path> s = Files.walk(root)) {
        s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".jar")).forEach(out::add);
      }
    }
    return out;
  }

  /** Every command line of the machine's Spark and tidemark processes, as `ps` shows them, sampled while open. */
  private static final class PsSampler implements AutoCloseable {
    private final Set<String> lines = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean open = true;

    PsSampler() {
      thread = new Thread(() -> {
        while (open) {
          sample();
          try {
            Thread.sleep(500);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "ps-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    private void sample() {
      try {
        Process p = new ProcessBuilder("ps", "-eww", "-o", "args=").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        out.lines().filter(l -> l.contains("spark") || l.contains("tidemark")).forEach(lines::add);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    Set<String> lines() {
      return lines;
    }

    @Override
    public void close() throws InterruptedException {
      open = false;
      thread.interrupt();
      thread.join();
    }
  }
}
