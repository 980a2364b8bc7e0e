package io.tidemark.testing;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.land.Lander;
import io.tidemark.land.SeedScenarios;
import io.tidemark.services.Endpoints;
import io.tidemark.services.Services;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.spark.sql.SparkSession;

/**
 * The real stack, once per test JVM: the embedded Nessie server and S3 server started by tidemark's own
 * {@link Services} under a fresh home on free ports, one bootstrapped lakehouse and one local SparkSession.
 * Stopped when the JVM exits. If a service cannot start, every test fails with the reason; none is skipped.
 */
public final class TestStack {
  private static TestStack instance;

  private final Path home;
  private final Map<String, String> env;
  private final TidemarkConfig config;
  private final Services services;
  private final Endpoints endpoints;
  private final Lakehouse lakehouse;

  private TestStack() {
    try {
      Path root = Path.of(System.getProperty("tidemark.test.home", "target/it-home")).toAbsolutePath();
      home = Files.createDirectories(root.resolve("stack-" + ProcessHandle.current().pid()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    env = environment(home);
    // the test JVM writes as the jobs do: its catalog works on the staging branch (tests of readers of the published
    // branch run commands in JVMs of their own, or name the branch: table@main)
    config = TidemarkConfig.of(env, Map.of()).writing();
    services = new Services(config);
    long t0 = System.nanoTime();
    endpoints = services.ensureUp();
    System.out.printf("[stack] services up in %.1f s under %s%n", (System.nanoTime() - t0) / 1e9, home);
    Runtime.getRuntime().addShutdownHook(new Thread(services::down, "tidemark-test-stack-down"));
    SparkSession spark = SparkSessions.getOrCreate(config, endpoints, "tidemark-it");
    lakehouse = Lakehouse.attach(config, endpoints, spark);
    Bootstrap.setUp(lakehouse);
    // off in the quick tier (./run-tests --quick), whose tests run no command in a JVM of its own: there the training
    // would be the longest step; without the archive a command's JVM starts as Cli starts it for a stale one
    if (Boolean.parseBoolean(System.getProperty("tidemark.test.train-class-archive", "true"))) {
      trainClassArchive();
    }
  }

  /**
   * Every command the tests run starts faster from the class archive (see Cli); the seed's first arrival through
   * every stream (in namespaces and buckets of its own) loads what most commands load: the streams, the writes,
   * the MERGE.
   */
  private void trainClassArchive() {
    long t0 = System.nanoTime();
    Cli.trainClassArchive(() -> {
      TidemarkConfig training = config.scoped("class_archive", home.resolve("class-archive-checkpoints"));
      Bootstrap.run(spark(), lakehouse.storage(), training);
      new Lander(lakehouse.storage(), training.landingBucket(), "").land(SeedScenarios.ALL.arrivals().get(0));
      return env(training);
    }, "stream", "all");
    System.out.printf("[stack] class archive ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
  }

  public static synchronized TestStack get() {
    if (instance == null) {
      instance = new TestStack();
    }
    return instance;
  }

  /** The stack, if this JVM started it: what may use it without starting one. */
  static synchronized java.util.Optional<TestStack> started() {
    return java.util.Optional.ofNullable(instance);
  }

  /** The environment of a tidemark that uses embedded services under {@code home} on free ports. */
  public static Map<String, String> environment(Path home) {
    Map<String, String> env = new HashMap<>();
    env.put("TIDEMARK_HOME", home.toString());
    // found together: three found one by one can be one port twice
    int[] ports = freePorts(3);
    env.put("TIDEMARK_NESSIE_PORT", Integer.toString(ports[0]));
    env.put("TIDEMARK_NESSIE_MANAGEMENT_PORT", Integer.toString(ports[1]));
    env.put("TIDEMARK_S3_PORT", Integer.toString(ports[2]));
    env.put("TIDEMARK_SHUFFLE_PARTITIONS", "2");
    env.put("TIDEMARK_SPARK_MASTER", "local[2]");
    return env;
  }

  /**
   * {@code n} distinct free ports: held open together while they are found, so none is found twice. They are taken
   * below the kernel's ephemeral range, where neither a socket bound to port 0 nor the local end of an outgoing
   * connection ever lands: a port found free here and bound by a service seconds later is not taken meanwhile by the
   * other track's JVMs and clients (it was, once: "Port ... seems to be in use" from an embedded Nessie).
   */
  public static int[] freePorts(int n) {
    int below = ephemeralStart();
    int from = Math.max(1024, below - 12_000);
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int tries = 0; held.size() < n; tries++) {
        if (tries > 10_000) {
          throw new IllegalStateException("no " + n + " free ports between " + from + " and " + below);
        }
        int port = from + ThreadLocalRandom.current().nextInt(below - from);
        try {
          held.add(new ServerSocket(port, 50, InetAddress.getLoopbackAddress()));
        } catch (IOException taken) {
          // in use: another
        }
      }
      return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } finally {
      for (ServerSocket s : held) {
        try {
          s.close();
        } catch (IOException e) {
          // closing a socket nothing connected to: nothing to do
        }
      }
    }
  }

  public static int freePort() {
    return freePorts(1)[0];
  }

  /** The first port of the kernel's ephemeral range (Linux's default when it cannot be read). */
  private static int ephemeralStart() {
    try {
      // by lines: Files.readString trusts the size /proc reports (0) and returns one character here
      int start = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
          .trim().split("\\s+")[0]);
      return start > 2_048 ? start : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  /** A name no other test uses, for branches, namespaces and prefixes. */
  public static String unique(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  public Path home() {
    return home;
  }

  /** The environment for {@link Cli} runs against this stack. */
  public Map<String, String> env() {
    return Map.copyOf(env);
  }

  /**
   * The environment under which a command gets exactly {@code config} (e.g. a {@link TidemarkConfig#scoped}
   * copy of this stack's): the reverse of {@link TidemarkConfig#of}. Secrets come from this stack's environment.
   */
  public Map<String, String> env(TidemarkConfig config) {
    Map<String, String> out = new HashMap<>();
    config.describe().forEach((setting, value) -> {
      if (setting.isSecret()) {
        if (env.containsKey(setting.env())) {
          out.put(setting.env(), env.get(setting.env()));
        }
      } else if (value != null) {
        out.put(setting.env(), value);
      }
    });
    return Map.copyOf(out);
  }

  /** A landing zone under a unique prefix of this stack's landing bucket. */
  public Landing landing(String name) {
    return Landing.under(this, name);
  }

  public TidemarkConfig config() {
    return config;
  }

  public Endpoints endpoints() {
    return endpoints;
  }

  public Lakehouse lakehouse() {
    return lakehouse;
  }

  public SparkSession spark() {
    return lakehouse.spark();
  }

  public NessieRest nessie() {
    return new NessieRest(endpoints.nessieApi());
  }
}
