package io.tidemark.testing;

import io.tidemark.CrashHook;
import io.tidemark.cli.Tidemark;
import io.tidemark.driver.Driver;
import io.tidemark.driver.DriverAddress;
import io.tidemark.driver.DriverClient;
import io.tidemark.driver.Handoff;
import io.tidemark.lakehouse.spark.SparkSessions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The test suite's resident driver: one per test JVM (failsafe fork), on its {@link TestStack}'s home and services,
 * listening on a loopback port with a secret of its own. {@link Cli#run} hands it the commands it would run as
 * users' commands reach theirs, through the launcher: a command on the stack's home and services starts in a
 * fraction of a second instead of a JVM's many, which is most of what the integration tests spent. A command whose
 * subject is a JVM of its own keeps one: given JVM options or a crash point (the launcher never hands those over),
 * one that names a driver of its own or other services, another home, a setting tidemark refuses (its one line comes
 * from the JVM, as a user meets it), and every {@link Cli#inJvm} run. Started on the first command it takes, so a
 * test JVM that runs none (the quick tier) starts none; off with {@code -Dtidemark.test.driver=false}.
 */
final class SuiteDriver {
  private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("tidemark.test.driver", "true"));
  /** A hang guard for a JVM, a SparkContext and the driver's catalog, on a machine the other fork shares. */
  private static final long START_SECONDS = 300;
  private static SuiteDriver instance;

  private final Process process;
  private final String address;
  private final String secret;

  private SuiteDriver(TestStack stack) {
    int port = TestStack.freePort();
    address = "127.0.0.1:" + port;
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    secret = HexFormat.of().formatHex(key);
    Map<String, String> env = new HashMap<>(stack.env());
    env.put(DriverAddress.SECRET_ENV, secret);
    Path log = stack.home().resolve("suite-driver.out");
    ProcessBuilder pb = new ProcessBuilder(Cli.command("driver", "serve", "--listen", address))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("TIDEMARK_"));
    pb.environment().putAll(env);
    long t0 = System.nanoTime();
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new AssertionError("cannot start the suite's driver", e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "tidemark-test-driver-stop"));
    DriverAddress at = DriverAddress.ofNetwork(address, secret);
    while (true) {
      try {
        DriverClient.ping(at);
        break;
      } catch (IOException | RuntimeException notYet) {
        if (!process.isAlive() || System.nanoTime() - t0 > START_SECONDS * 1_000_000_000L) {
          process.destroyForcibly();
          throw new AssertionError("the suite's driver did not answer at " + address + " ("
              + (process.isAlive() ? "still starting after " + START_SECONDS + " s" : "it exited") + "):\n"
              + tail(log));
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
    System.out.printf("[stack] the suite's driver answers at %s after %.1f s%n", address,
        (System.nanoTime() - t0) / 1e9);
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  /**
   * {@code env} with the suite's driver to hand {@code args} to, or {@code env} itself when the command is one that
   * keeps a JVM of its own (see the class).
   */
  static Map<String, String> route(Map<String, String> env, String... args) {
    if (!ENABLED || env.keySet().stream().anyMatch(k -> k.startsWith("TIDEMARK_DRIVER")
        || k.equals(CrashHook.VARIABLE) || k.equals("TIDEMARK_JAVA_OPTS"))) {
      return env;
    }
    List<String> argList = List.of(args);
    Optional<TestStack> started = TestStack.started();
    if (started.isEmpty() || !Handoff.runs(argList, env)) {
      return env;
    }
    TestStack stack = started.get();
    Path home = Handoff.home(argList, env, Path.of("").toAbsolutePath());
    if (!home.equals(stack.home().toAbsolutePath().normalize()) || Files.exists(home.resolve("run/driver.sock"))) {
      return env;
    }
    Optional<Map<String, String>> conf = Tidemark.sparkSettings(env, argList);
    if (conf.isEmpty()
        || Driver.servable(SparkSessions.conf(stack.config(), stack.endpoints()), conf.get()).isPresent()) {
      return env;
    }
    SuiteDriver driver = get(stack);
    Map<String, String> out = new HashMap<>(env);
    out.put(DriverAddress.ADDRESS_ENV, driver.address);
    out.put(DriverAddress.SECRET_ENV, driver.secret);
    return out;
  }

  private static synchronized SuiteDriver get(TestStack stack) {
    if (instance == null) {
      instance = new SuiteDriver(stack);
    }
    return instance;
  }
}
