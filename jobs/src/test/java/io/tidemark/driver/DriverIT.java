package io.tidemark.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.RefQualifiedNames;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.testing.Cli;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.Steps;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resident driver, through the launcher as scripts and Airflow run it: two pipelines on branches of their own
 * take the same seed arrivals, one command by command in fresh JVMs ({@code TIDEMARK_DRIVER=off}), the other through a
 * driver started for a home of its own (on the shared stack's services), after a warm-up of one seed arrival on a
 * pipeline of its own that leaves nothing behind. Every command prints and exits as in a JVM
 * of its own; settings, sessions and logs stay each command's; an unauthenticated caller is refused; a cancelled
 * command stops and the driver serves on; a driver killed mid-stream leaves what a killed JVM leaves, and the rerun on
 * a new driver makes the pipeline equal to the fresh JVMs'.
 */
@Steps
class DriverIT extends StackTest {
  private Path home;
  private Map<String, String> fresh;
  private Map<String, String> driven;
  private TidemarkConfig a;
  private TidemarkConfig b;
  private final List<String> freshOut = new ArrayList<>();
  private final List<String> drivenOut = new ArrayList<>();

  @BeforeAll
  void twoPipelines(@TempDir Path dir) throws IOException {
    home = Files.createDirectories(stack.home().resolve(TestStack.unique("driver-home")));
    a = pipeline("drv_fresh", dir.resolve("a"));
    b = pipeline("drv_driven", dir.resolve("b"));
    fresh = on(a);
    fresh.put("TIDEMARK_DRIVER", "off");
    driven = on(b);
  }

  /** A pipeline with branches, namespaces and a landing bucket of its own. */
  private TidemarkConfig pipeline(String label, Path checkpoints) {
    String name = TestStack.unique(label);
    return stack.config().scoped(name, checkpoints)
        .with(Map.of(Setting.NESSIE_REF, name + "_main", Setting.STAGING_BRANCH, name + "_ingest"));
  }

  /** The environment of a command on the pipeline, in the driver's home, on the stack's services. */
  private Map<String, String> on(TidemarkConfig config) {
    Map<String, String> env = new HashMap<>(stack.env(config));
    env.put("TIDEMARK_HOME", home.toString());
    env.put("TIDEMARK_NESSIE_URI", stack.endpoints().nessieApi().toString());
    env.put("TIDEMARK_S3_ENDPOINT", stack.endpoints().s3Endpoint().toString());
    env.put("TIDEMARK_S3_ACCESS_KEY", stack.endpoints().s3AccessKey().reveal());
    env.put("TIDEMARK_S3_SECRET_KEY", stack.endpoints().s3SecretKey().reveal());
    return env;
  }

  @AfterAll
  void stopTheDriver() {
    Cli.run(driven, "driver", "stop");
  }

  @Test
  @Order(1)
  void theDriverStartsWarmsUpAndAnswers() throws IOException {
    // what a warm-up killed with its driver left, which the next warm-up removes first
    Path checkpoints = Path.of(b.checkpointRoot() + WarmUp.SUFFIX);
    Files.createDirectories(checkpoints.resolve("raw"));
    Files.writeString(checkpoints.resolve("raw/left"), "left by a killed warm-up");
    String bucket = b.landingBucket() + WarmUp.SUFFIX;
    String defaultHead;
    try (NessieRefs refs = new NessieRefs(stack.endpoints()); Storage s3 = Storage.connect(b, stack.endpoints())) {
      refs.createBranch(WarmUp.STAGING, refs.branch(refs.defaultBranch()));
      s3.ensureBucket(bucket);
      s3.put(bucket, "events/left.jsonl", "{}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8), "text/plain");
      s3.put(b.warehouseBucket(), warmUpTables() + "left/data.parquet", new byte[1], "application/octet-stream");
      defaultHead = refs.branch(refs.defaultBranch()).getHash();
    }
    Cli.Result start = Cli.run(driven, "driver", "start", "--warm-up", "1");
    assertThat(start.exitCode()).as(start.toString()).isZero();
    assertThat(start.out()).contains("serving on " + home.resolve("run/driver.sock"))
        // the launcher's default JVM options, as every tidemark JVM's: small commands, no C2 compiling them again
        .contains(", the JIT's first tier;")
        .contains("warm-up: done in", "(4 commands: seed arrival 1 landed, streamed and published");
    // it ran through the driver as callers' commands do (each its log file), on a pipeline of its own, all removed
    try (Stream<Path> logs = Files.list(home.resolve("logs"))) {
      assertThat(logs.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("tidemark-stream-all-"))
          .anyMatch(n -> n.startsWith("tidemark-publish-"));
    }
    try (NessieRefs refs = new NessieRefs(stack.endpoints()); Storage s3 = Storage.connect(b, stack.endpoints())) {
      assertThat(refs.branches(WarmUp.BRANCH)).as("the warm-up's branches").isEmpty();
      assertThat(refs.exists(b.publishedRef())).as("the pipeline's branches are not the warm-up's").isFalse();
      assertThat(s3.list(bucket, "")).as("what the warm-up landed").isEmpty();
      assertThat(s3.list(b.warehouseBucket(), warmUpTables())).as("the warm-up's tables' files").isEmpty();
      assertThat(s3.bucketExists(b.landingBucket())).as("the pipeline's landing bucket, made by its bootstrap")
          .isFalse();
    }
    assertThat(checkpoints).doesNotExist();
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      assertThat(refs.branch(refs.defaultBranch()).getHash()).as("Nessie's default branch").isEqualTo(defaultHead);
    }
    assertThat(home.resolve("run/driver.key")).isRegularFile();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("run/driver.key"))))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.resolve("run/driver.sock"))))
        .isEqualTo("rw-------");
    Cli.Result status = Cli.run(driven, "driver", "status");
    assertThat(status.exitCode()).as(status.toString()).isZero();
    assertThat(status.out()).as("the warm-up's commands are not the callers'").contains("commands: 0 done, 0 failed",
        "0 running", "warm-up: done in");
  }

  /** Where the warm-up's tables keep their files: the warehouse's directory of its namespace. */
  private String warmUpTables() {
    String path = java.net.URI.create(b.warehouse()).getPath().substring(1);
    return (path.isEmpty() ? "" : path + "/") + WarmUp.NAMESPACE + "/";
  }

  @Test
  @Order(2)
  void commandsPrintAndExitAsInJvmsOfTheirOwn() {
    both("bootstrap");
    for (int k = 1; k <= 2; k++) {
      both("land", "--scenario", "seed", "--arrival", Integer.toString(k));
      both("stream", "all");
      both("publish");
    }
    // failures: the same line and exit code; a bad option is a usage error, a bad statement Spark's complaint
    both("sql", "SELECT nope");
    both("stream", "all", "--no-such-option");
    both("check", "--branch", "no_such_branch_anywhere");
    assertThat(drivenOut).isEqualTo(freshOut);
    assertThat(drivenOut).anyMatch(l -> l.startsWith("exit 0 published events arrival 2, companies arrival 2"));
    Cli.Result status = Cli.run(driven, "driver", "status");
    assertThat(status.out()).as("the failed commands left it serving").contains("3 failed", "0 running");
  }

  /** The command on both pipelines; what each printed and its exit code, the pipeline's names and times masked. */
  private void both(String... args) {
    freshOut.addAll(normalized(Cli.run(fresh, args), a));
    Cli.Result r = Cli.run(driven, args);
    assertThat(r.err()).as("no notice of a driver that does not answer").doesNotContain("resident driver");
    drivenOut.addAll(normalized(r, b));
  }

  private static List<String> normalized(Cli.Result r, TidemarkConfig config) {
    String name = SeedTables.of(config).events().namespace();
    List<String> out = new ArrayList<>();
    for (String l : (r.out() + r.err()).split("\n")) {
      out.add("exit " + r.exitCode() + " " + l.replace(name, "NS").replace(config.landingBucket(), "BUCKET")
          .replace(config.publishedRef(), "MAIN").replace(config.stagingBranch(), "INGEST")
          .replaceAll("tidemark-[a-z-]+-\\d{8}-\\d{6}\\.\\d{3}-\\d+\\.log", "LOG")
          .replaceAll("\\(\\d+\\.\\d+ s\\)", "(T s)").replaceAll("[0-9a-f]{8,64}", "HASH"));
    }
    return out;
  }

  @Test
  @Order(3)
  void eachCommandHasItsOwnSettingsSessionAndLog() throws Exception {
    // two commands at once with other shuffle partitions and branches: each sees its own
    Map<String, String> three = new HashMap<>(driven);
    three.put("TIDEMARK_SHUFFLE_PARTITIONS", "3");
    Map<String, String> five = new HashMap<>(driven);
    five.put("TIDEMARK_SHUFFLE_PARTITIONS", "5");
    CompletableFuture<Cli.Result> r3 = CompletableFuture.supplyAsync(() ->
        Cli.run(three, "sql", "--format", "csv",
            "SELECT \"${spark.sql.shuffle.partitions}\" AS p, reflect('java.lang.Thread', 'sleep', 3000L) AS slept"));
    Thread.sleep(1000);
    Cli.Result r5 = Cli.run(five, "sql", "--format", "csv", "SET spark.sql.shuffle.partitions");
    assertThat(r3.get(5, TimeUnit.MINUTES).out()).contains("\n3,");
    assertThat(r5.out()).contains("spark.sql.shuffle.partitions,5");
    // the branch: the published one, then a command naming the staging branch reads that
    Cli.Result onStaging = Cli.run(driven, "--nessie-ref", b.stagingBranch(), "sql", "--format", "csv",
        "SELECT count(*) FROM " + SeedTables.of(b).events());
    assertThat(onStaging.exitCode()).as(onStaging.toString()).isZero();
    // what a command sets or makes in its session is gone for the next
    succeeds(Cli.run(driven, "sql", "SET spark.sql.ansi.enabled=true"));
    assertThat(Cli.run(driven, "sql", "--format", "csv", "SET spark.sql.ansi.enabled").out())
        .contains("spark.sql.ansi.enabled,false");
    succeeds(Cli.run(driven, "sql", "CREATE TEMPORARY VIEW left_behind AS SELECT 1 AS x"));
    Cli.Result view = Cli.run(driven, "sql", "SELECT * FROM left_behind");
    assertThat(view.exitCode()).isEqualTo(1);
    assertThat(view.err()).contains("left_behind");
    // the author and run context of a command's commits are its own
    Map<String, String> ctx = new HashMap<>(driven);
    ctx.put("TIDEMARK_RUN_CONTEXT", "dag=driver_it run=one");
    succeeds(Cli.run(ctx, "land", "--scenario", "seed", "--arrival", "3"));
    String before = stack.nessie().hash(b.stagingBranch());
    succeeds(Cli.run(ctx, "stream", "raw"));
    assertThat(stack.nessie().commitsSince(b.stagingBranch(), before))
        .isNotEmpty().allSatisfy(c -> assertThat(c.author()).contains("tidemark-stream/raw [dag=driver_it run=one]"));
    // each command's libraries' logs in a file of its own, named by the caller's process
    try (Stream<Path> logs = Files.list(home.resolve("logs"))) {
      assertThat(logs.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("tidemark-sql-")).count())
          .isGreaterThanOrEqualTo(5);
    }
    Cli.Result failed = Cli.run(driven, "check", "--branch", "no_such_branch_anywhere");
    Optional<String> named = failed.errLines().stream().filter(l -> l.contains("[details in ")).findFirst();
    if (named.isPresent()) {
      Path log = Path.of(named.get().replaceAll(".*\\[details in (\\S+);.*", "$1"));
      assertThat(log).exists().hasParent(home.resolve("logs"));
      assertThat(Files.readString(log)).contains("no_such_branch_anywhere");
    }
  }

  @Test
  @Order(4)
  void anUnauthenticatedCallerIsRefused() throws IOException {
    DriverAddress address = DriverAddress.ofHome(home);
    try (SocketChannel ch = address.connect()) {
      InputStream in = Wire.in(ch);
      OutputStream out = Wire.out(ch);
      Wire.Frame hello = Wire.read(in);
      assertThat(hello.type()).isEqualTo(Wire.HELLO);
      Wire.write(out, Wire.AUTH, new byte[32]);
      Wire.Frame answer = Wire.read(in);
      assertThat(answer.type()).isEqualTo(Wire.DENIED);
      assertThat(answer.text()).startsWith("not authenticated");
    }
    // a caller with another key is refused too, says so in one line, and runs the command in a JVM of its own
    Path key = home.resolve("run/driver.key");
    String real = Files.readString(key);
    Files.writeString(key, "00".repeat(32) + "\n");
    try {
      Cli.Result r = Cli.run(driven, "sql", "SELECT 1");
      assertThat(r.exitCode()).as(r.toString()).isZero();
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.err()).contains("refused this caller: not authenticated", "running the command in a JVM of its own");
    } finally {
      Files.writeString(key, real);
    }
    assertThat(Cli.run(driven, "driver", "status").out()).contains("2 callers refused");
    // a caller that connects and leaves without a word (compose's health check, every 10 s) is not refused, and
    // leaves no warning in the driver's logs
    for (int i = 0; i < 3; i++) {
      address.connect().close();
    }
    assertThat(Cli.run(driven, "driver", "status").out()).contains("2 callers refused");
    try (var logs = Files.list(home.resolve("logs"))) {
      List<Path> driverLogs = new ArrayList<>(logs.filter(p -> p.getFileName().toString()
          .startsWith("tidemark-driver-serve-")).toList());
      driverLogs.add(home.resolve("run/driver.log"));
      for (Path log : driverLogs) {
        assertThat(Files.readString(log)).as("%s", log).doesNotContain("ended early")
            .doesNotContain("left before");
      }
    }
  }

  @Test
  @Order(5)
  void aCancelledCommandStopsAndTheDriverServesOn() throws Exception {
    // a Spark job of minutes (a warm driver's stream of a small arrival ends before a cancel could be timed)
    Process p = Cli.start(driven, "sql", "SELECT sum(id * 7 % 13) FROM range(0, 1000000000000, 1, 2)");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!Cli.run(driven, "driver", "status").out().contains(" 1 running") && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    Thread.sleep(1000);
    assertThat(p.isAlive()).as("the job still runs when it is cancelled").isTrue();
    // cancelled while it runs: Airflow's timeout and Ctrl-C send the launcher a signal
    p.destroy();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isNotZero();
    awaitIdle();
    succeeds(Cli.run(driven, "sql", "SELECT 1"));
  }

  @Test
  @Order(6)
  void aKilledDriverLeavesWhatAKilledJvmLeavesAndANewOneCompletesTheWork() throws Exception {
    // the arrival the driven pipeline landed with a run context of its own, then the next on both
    assertThat(Cli.run(fresh, "land", "--scenario", "seed", "--arrival", "3").exitCode()).isZero();
    both("land", "--scenario", "seed", "--arrival", "4");
    freshOut.addAll(normalized(Cli.run(fresh, "stream", "all"), a));
    long pid = driverPid();
    String before = stack.nessie().hash(b.stagingBranch());
    Process p = Cli.start(driven, "stream", "all");
    // killed once the streams have committed something of the arrival (whatever they have not is left undone)
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (stack.nessie().hash(b.stagingBranch()).equals(before) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as("the caller of a killed driver exits as a killed JVM").isEqualTo(137);
    // down: one line, and the command runs in a JVM of its own
    Cli.Result down = Cli.run(driven, "sql", "SELECT 1");
    assertThat(down.exitCode()).as(down.toString()).isZero();
    assertThat(down.err()).contains("the resident driver at " + home.resolve("run/driver.sock")
        + " does not answer", "running the command in a JVM of its own");
    // a publish of what the killed streams left: never a torn arrival (refused, or nothing new)
    Cli.Result torn = Cli.run(driven, "publish");
    assertThat(torn.exitCode()).as(torn.toString()).isIn(0, 1);
    succeeds(Cli.run(driven, "driver", "start"));
    succeeds(Cli.run(driven, "stream", "all"));
    // killed mid-publish: main is where it was or has the whole arrival, and the rerun publishes it once
    String mainBefore = stack.nessie().hash(b.publishedRef());
    long again = driverPid();
    Process publishing = Cli.start(driven, "publish");
    Thread.sleep(700);
    ProcessHandle.of(again).ifPresent(ProcessHandle::destroyForcibly);
    assertThat(publishing.waitFor(1, TimeUnit.MINUTES)).isTrue();
    // a warm-up that cannot run (a tag where its branch goes) is said in one line; the driver serves all the same
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      String head = refs.branch(refs.defaultBranch()).getHash();
      refs.tag(WarmUp.BRANCH, refs.defaultBranch(), head);
      try {
        Cli.Result start = Cli.run(driven, "driver", "start", "--warm-up", "1");
        succeeds(start);
        assertThat(start.out()).contains("warm-up: failed after", WarmUp.BRANCH, "serving all the same");
      } finally {
        refs.deleteTagAt(WarmUp.BRANCH, head);
      }
    }
    succeeds(Cli.run(driven, "publish"));
    assertThat(stack.nessie().commitsSince(b.publishedRef(), mainBefore)).as("one publish of the arrivals on main")
        .hasSize(1);
    succeeds(Cli.run(fresh, "publish"));
    for (String table : List.of("events", "event_counts", "companies")) {
      Dataset<Row> fromFresh = published(a, table);
      Dataset<Row> fromDriver = published(b, table);
      assertThat(fromDriver.exceptAll(fromFresh).count()).as(table + " rows the driver's pipeline has more").isZero();
      assertThat(fromFresh.exceptAll(fromDriver).count()).as(table + " rows the driver's pipeline lacks").isZero();
    }
  }

  private Dataset<Row> published(TidemarkConfig config, String table) {
    TableName t = switch (table) {
      case "events" -> SeedTables.of(config).events();
      case "event_counts" -> SeedTables.of(config).eventCounts();
      default -> SeedTables.of(config).companies();
    };
    String columns = switch (table) {
      case "events" -> "event_id, company_id, amount, event_ts";
      case "event_counts" -> "company_id, w_start, n";
      default -> "company_id, name, tier, valid_from, valid_to, is_current";
    };
    return spark.sql("SELECT " + columns + " FROM " + RefQualifiedNames.quote(t + "@" + config.publishedRef()));
  }

  private long driverPid() throws IOException {
    return Long.parseLong(Files.readString(home.resolve("run/driver.pid")).trim().split("\\s+")[0]);
  }

  private void awaitIdle() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    String out = "";
    while (System.nanoTime() < deadline) {
      out = Cli.run(driven, "driver", "status").out();
      if (out.contains(" 0 running")) {
        return;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("the cancelled command still runs: " + out);
  }

  private static void succeeds(Cli.Result r) {
    assertThat(r.exitCode()).as(r.toString()).isZero();
  }
}
