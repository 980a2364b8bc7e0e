package io.tidemark.cli;

import io.tidemark.testing.SeedTables;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.driver.DriverAddress;
import io.tidemark.driver.DriverClient;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.services.Endpoints;
import io.tidemark.testing.Cli;
import io.tidemark.testing.FaultProxy;
import io.tidemark.testing.FaultProxy.Fault;
import io.tidemark.testing.FaultProxy.Rule;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.OtherHome;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.StagedPipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Transient faults of the services absorbed: a loopback proxy in front of Nessie and one in front of the S3 server
 * ({@link FaultProxy}) close some requests unanswered and lose some answers after the service did the work. Six
 * arrivals land through them and go through {@code stream all} and {@code publish}: the first half each a command in a
 * JVM of its own (what the launcher runs when no driver serves the home), the second half handed by the launcher to
 * the home's resident driver, whose own Spark session reaches the services through the same proxies, and whose start
 * asks the services again when its probe of each is closed unanswered. No command fails, and the published tables equal
 * those of a pipeline that ran the same arrivals without a proxy. Then the faults that matter most, one of each on
 * purpose: a table commit's answer, a publish merge's answer and an object write's answer lost, a read closed
 * unanswered: each done once, not twice.
 */
class TransientFaultsIT extends StackTest {
  /** The rates the issue names: 1% of requests closed unanswered, 0.3% of answers lost after forwarding. */
  private static final double CLOSE = 0.01;
  private static final double LOSE = 0.003;
  private static final int ARRIVALS = 6;
  /** The arrivals whose commands run in JVMs of their own; the driver runs the rest. */
  private static final int IN_JVMS = 3;
  private static final Pattern RETRY_WAIT = Pattern.compile("tidemark retries .* in (\\d+) ms");

  /**
   * Arrivals 1 to 3 each through {@code stream all} and {@code publish} in JVMs of their own, 4 to 6 through the
   * home's resident driver, all on one home and through the proxies; the tables then equal the reference's.
   */
  @Test
  void sixArrivalsThroughFaultyServicesInJvmsThenTheDriverPublishWhatARunWithoutFaultsPublishes()
      throws IOException, InterruptedException {
    GeneratorSpec spec = new GeneratorSpec(47, 360, 6, 0.05, 0.05, 2, 0.02, ARRIVALS, 24, 8,
        GeneratorSpec.DEFAULT_START, 60);
    List<Arrival> arrivals = new GeneratedScenario(spec, io.tidemark.pipeline.PipelineFile.seed()).arrivals();
    StagedPipeline reference = new StagedPipeline(stack, "faultless", tmp.resolve("cp-reference"));
    StagedPipeline faulty = new StagedPipeline(stack, "faulty", tmp.resolve("cp-faulty"));
    Path home = Files.createDirectories(tmp.resolve("home-faulty"));
    double[] commandSeconds = {0};
    int inJvms = 0;
    int inDriver = 0;
    double startSeconds;
    try (FaultProxy nessie = new FaultProxy("nessie", stack.endpoints().nessieApi().getPort(), CLOSE, LOSE, 4711);
         FaultProxy s3 = new FaultProxy("s3", stack.endpoints().s3Endpoint().getPort(), CLOSE, LOSE, 4712);
         Storage storage = Storage.connect(faulty.config(), through(nessie, s3))) {
      Map<String, String> env = env(faulty, home, nessie, s3);
      Lander lander = new Lander(storage, faulty.config().landingBucket(), "");
      // no driver serves the home yet: the launcher runs each command in a JVM of its own
      for (Arrival a : arrivals.subList(0, IN_JVMS)) {
        arrive(a, reference, lander, env, commandSeconds, false);
        inJvms += 2;
      }
      // the driver's start probes both services through the proxies (its command's JVM, then the driver's own): the
      // first probe of each is closed unanswered twice, the JDK's HTTP client's own retry of a GET too, so that
      // tidemark's probe asks again (Probe.get)
      String nessieProbe = "GET /api/v2/config closed unanswered";
      String s3Probe = "GET / closed unanswered";
      long nessieProbesClosed = count(nessie, nessieProbe);
      long s3ProbesClosed = count(s3, s3Probe);
      nessie.rule(Rule.of("GET", "/config$", Fault.CLOSE_UNANSWERED, 2));
      s3.rule(Rule.of("GET", "^/$", Fault.CLOSE_UNANSWERED, 2));
      try {
        Cli.Result start = Cli.run(env, "driver", "start");
        assertThat(start.exitCode()).as("tidemark driver start through the faults: %s", start).isZero();
        startSeconds = start.seconds();
        assertThat(count(nessie, nessieProbe) - nessieProbesClosed).as("the driver's start met its probes closed")
            .isGreaterThanOrEqualTo(2);
        assertThat(count(s3, s3Probe) - s3ProbesClosed).isGreaterThanOrEqualTo(2);
        assertThat(home.resolve("run/driver.sock")).exists();
        for (Arrival a : arrivals.subList(IN_JVMS, ARRIVALS)) {
          arrive(a, reference, lander, env, commandSeconds, true);
          inDriver += 2;
        }
        assertThat(served(home, inDriver)).as("the driver ran each of arrivals %d to %d's commands", IN_JVMS + 1,
            ARRIVALS).contains("commands: " + inDriver + " done, 0 failed, 0 running");
      } finally {
        Cli.run(env, "driver", "stop");
      }
      try (Stream<Path> files = Files.list(home.resolve("logs"))) {
        List<String> names = files.map(f -> f.getFileName().toString()).toList();
        // the retries counted below are those of every command: the driver writes each command's log there too
        assertThat(names).as("a log of each command's in the home's logs, the driver's commands' too")
            .filteredOn(f -> f.startsWith("tidemark-stream-all-")).hasSize(ARRIVALS);
        assertThat(names).filteredOn(f -> f.startsWith("tidemark-publish-")).hasSize(ARRIVALS);
      }
      List<String> logs = logLines(home);
      assertThat(logs).as("the probes closed unanswered were asked again")
          .anyMatch(l -> l.contains("tidemark retries the probe of " + nessie.uri("/api/v2/config")))
          .anyMatch(l -> l.contains("tidemark retries the probe of " + s3.uri("") + " in "));
      long ours = logs.stream().filter(l -> l.contains("tidemark retries ")).count();
      long reconciled = logs.stream().filter(l -> l.contains("tidemark found ")).count();
      long waitedMs = logs.stream().map(RETRY_WAIT::matcher).filter(Matcher::find)
          .mapToLong(m -> Long.parseLong(m.group(1))).sum();
      FaultProxy.Stats n = nessie.stats();
      FaultProxy.Stats o = s3.stats();
      // the numbers the closing note reports (the build's output keeps them)
      System.out.printf("[faults] %d arrivals, %d commands in %.0f s (%d in JVMs of their own, %d through the resident "
              + "driver, started in %.1f s); Nessie: %s; S3: %s; faults injected %d; retried by tidemark %d (of which "
              + "%d found done and not made again), the rest by the AWS SDKs' and s3a's own retries; tidemark's retry "
              + "waits %.1f s%n", ARRIVALS, inJvms + inDriver, commandSeconds[0], inJvms, inDriver, startSeconds, n, o,
          n.faults() + o.faults(), ours, reconciled, waitedMs / 1000.0);
      assertThat(n.faults() + o.faults()).as("faults were injected (%s; %s)", n, o).isPositive();
      assertThat(n.requests()).as("every Nessie call went through its proxy").isGreaterThan(500);
    }
    for (TableName t : List.of(SeedTables.of(faulty.config()).rawEvents(), SeedTables.of(faulty.config()).rejected(),
        SeedTables.of(faulty.config()).rawCompanyChanges(), SeedTables.of(faulty.config()).events(),
        SeedTables.of(faulty.config()).eventCounts(), SeedTables.of(faulty.config()).companies(),
        SeedTables.of(faulty.config()).companyChanges())) {
      assertSameRows(t, faulty, reference);
    }
    NessieRest rest = stack.nessie();
    assertThat(rest.diff(faulty.published(), faulty.staging())).as("everything staged was published").isEmpty();
  }

  /**
   * Lands {@code a} on the reference (run in this JVM) and through the proxies, then runs {@code stream all} and
   * {@code publish} through the launcher: each exits 0, and {@code viaDriver} says whether the launcher handed it to
   * the home's driver (it says in a line on stderr when a driver it expected did not serve it).
   */
  private static void arrive(Arrival a, StagedPipeline reference, Lander lander, Map<String, String> env,
      double[] commandSeconds, boolean viaDriver) {
    reference.land(a);
    reference.streamAll();
    reference.publish();

    lander.land(a);
    for (String[] command : List.of(new String[] {"stream", "all"}, new String[] {"publish"})) {
      Cli.Result r = Cli.run(env, command);
      String what = String.format("arrival %d: tidemark %s through the faults%s", a.number(), String.join(" ", command),
          viaDriver ? ", in the driver" : "");
      assertThat(r.exitCode()).as("%s: %s", what, r).isZero();
      if (viaDriver) {
        assertThat(r.err()).as("%s: no fallback to a JVM: %s", what, r).doesNotContain("resident driver");
      }
      commandSeconds[0] += r.seconds();
    }
  }

  /** How many of the proxy's requests so far were {@code faulted}, as {@link FaultProxy.Stats#faulted} says each. */
  private static long count(FaultProxy proxy, String faulted) {
    return proxy.stats().faulted().stream().filter(faulted::equals).count();
  }

  /**
   * The status line of the home's driver ({@code tidemark driver status} prints it) once it counts {@code done}
   * commands done: it counts a command after its caller has its exit code, so the last one may take a moment.
   */
  private static String served(Path home, int done) throws IOException, InterruptedException {
    String status = "";
    for (long until = System.nanoTime() + 30_000_000_000L; System.nanoTime() < until; Thread.sleep(200)) {
      status = DriverClient.ping(DriverAddress.ofHome(home));
      if (status.contains("commands: " + done + " done")) {
        break;
      }
    }
    return status;
  }

  /**
   * One of each fault that could apply a change twice: the answer of a table commit, of the publish's merge and of
   * an object write lost after the service did them, a read closed unanswered. Each command succeeds, says in its log
   * that it found the change done, and the change is there once: one publish commit on main, no row twice.
   */
  @Test
  void aChangeWhoseAnswerIsLostIsFoundDoneNotMadeTwice() throws IOException {
    StagedPipeline reference = new StagedPipeline(stack, "lostref", tmp.resolve("cp-lostref"));
    StagedPipeline p = new StagedPipeline(stack, "lost", tmp.resolve("cp-lost"));
    Path home = Files.createDirectories(tmp.resolve("home-lost"));
    Arrival arrival = new GeneratedScenario(new GeneratorSpec(3, 80, 3, 0.05, 0.0, 0, 0.02, 1, 6, 4,
        GeneratorSpec.DEFAULT_START, 60), io.tidemark.pipeline.PipelineFile.seed()).arrivals().get(0);
    try (FaultProxy nessie = new FaultProxy("nessie", stack.endpoints().nessieApi().getPort(), 0, 0, 1);
         FaultProxy s3 = new FaultProxy("s3", stack.endpoints().s3Endpoint().getPort(), 0, 0, 2);
         Storage storage = Storage.connect(p.config(), through(nessie, s3))) {
      nessie.rule(Rule.of("POST", "/history/commit", Fault.LOSE_ANSWER, 1))
          .rule(Rule.of("GET", "/contents", Fault.CLOSE_UNANSWERED, 1));
      s3.rule(Rule.of("PUT", "\\.parquet", Fault.LOSE_ANSWER, 1))
          .rule(Rule.of("GET", "/" + p.config().landingBucket() + "/", Fault.CLOSE_UNANSWERED, 1));
      Map<String, String> env = env(p, home, nessie, s3);
      new Lander(storage, p.config().landingBucket(), "").land(arrival);
      reference.land(arrival);
      reference.streamAll();
      reference.publish();

      Cli.Result streams = Cli.run(env, "stream", "all");
      assertThat(streams.exitCode()).as("%s", streams).isZero();
      String mainBefore = stack.nessie().hash(p.published());
      // the merge that publishes, not the dry runs before it that find the merge base ("isDryRun" : true)
      nessie.rule(Rule.of("POST", "/history/merge", Fault.LOSE_ANSWER, 1)
          .whereBody(b -> !b.replaceAll("\\s", "").contains("DryRun\":true")));
      Cli.Result publish = Cli.run(env, "publish");
      assertThat(publish.exitCode()).as("%s", publish).isZero();
      assertThat(nessie.stats().faulted()).as("the faults happened")
          .anyMatch(f -> f.contains("/history/commit") && f.contains("answer lost"))
          .anyMatch(f -> f.contains("/history/merge") && f.contains("answer lost"));
      assertThat(s3.stats().faulted()).anyMatch(f -> f.contains(".parquet") && f.contains("answer lost"));
      List<String> logs = logLines(home);
      assertThat(logs).as("the lost commit and merge were found done")
          .anyMatch(l -> l.contains("tidemark found nessie commitMultipleOperations") && l.contains("done"))
          .anyMatch(l -> l.contains("tidemark found nessie mergeRefIntoBranch") && l.contains("done"));
      assertThat(stack.nessie().entriesSince(p.published(), mainBefore)).as("one publish commit").hasSize(1);
    }
    for (TableName t : List.of(SeedTables.of(p.config()).rawEvents(), SeedTables.of(p.config()).rejected(),
        SeedTables.of(p.config()).events(), SeedTables.of(p.config()).eventCounts(), SeedTables.of(p.config()).companies(),
        SeedTables.of(p.config()).companyChanges())) {
      assertSameRows(t, p, reference);
    }
  }

  /** The services' addresses through the proxies, with the stack's keys. */
  private Endpoints through(FaultProxy nessie, FaultProxy s3) {
    return new Endpoints(nessie.uri("/api/v2"), s3.uri(""), stack.endpoints().s3AccessKey(),
        stack.endpoints().s3SecretKey());
  }

  /** A command on pipeline {@code p} whose services are reached through the proxies; its logs under {@code home}. */
  private Map<String, String> env(StagedPipeline p, Path home, FaultProxy nessie, FaultProxy s3) {
    Map<String, String> env = new HashMap<>(p.env());
    env.put("TIDEMARK_HOME", home.toString());
    env.put("TIDEMARK_NESSIE_URI", nessie.uri("/api/v2").toString());
    env.put("TIDEMARK_S3_ENDPOINT", s3.uri("").toString());
    env.put("TIDEMARK_S3_ACCESS_KEY", stack.endpoints().s3AccessKey().reveal());
    env.put("TIDEMARK_S3_SECRET_KEY", stack.endpoints().s3SecretKey().reveal());
    return env;
  }

  private static List<String> logLines(Path home) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> logs = Files.list(home.resolve("logs"))) {
      for (Path f : logs.toList()) {
        out.addAll(Files.readAllLines(f));
      }
    }
    return out;
  }

  /** The table on each pipeline's published branch holds the same rows ({@link OtherHome#assertSameRows}). */
  private void assertSameRows(TableName table, StagedPipeline a, StagedPipeline b) {
    TableName theirs = SeedTables.of(b.config()).all().stream().filter(t -> t.table().equals(table.table())).findFirst()
        .orElseThrow();
    assertThat(spark.table(table.sqlAt(a.published())).count()).as("%s: rows", table).isPositive();
    OtherHome.assertSameRows(table.toString(), spark.table(table.sqlAt(a.published())),
        spark.table(theirs.sqlAt(b.published())));
  }
}
