package io.tidemark.testing;

import io.tidemark.CrashHook;
import io.tidemark.cli.Tidemark;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.driver.DriverAddress;
import io.tidemark.driver.Handoff;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.services.Services;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.sql.internal.SQLConf;
import picocli.CommandLine;
import scala.collection.JavaConverters;

/**
 * Runs the real command exactly as scripts and Airflow do: {@code jobs/target/tidemark ...}, the launcher next to
 * the jar, in a fresh JVM or, through the launcher, in the suite's resident driver ({@link SuiteDriver}), with a
 * given environment (no TIDEMARK_* variable leaks in from the test JVM); or, where a
 * fresh JVM is not what a test is about, its command line in the test JVM ({@link #inProcess}). The launcher gives
 * the JVM its options (the JIT's first tier: a test's command does little work) and maps the class archive next to
 * the jar, which {@link #trainClassArchive} has it write once per build.
 */
public final class Cli {
  /** A hang guard, not a speed assertion: nothing tidemark does in tests takes minutes, but a benchmark (below). */
  private static final long TIMEOUT_SECONDS = 600;
  /** A benchmark's command runs every section of it, minutes on a loaded 2-core machine even at the tests' sizes. */
  private static final long BENCH_TIMEOUT_SECONDS = 1800;
  private static List<String> javaOptions;

  private Cli() {}

  /**
   * Whether the launcher has a class data sharing archive to map (a Spark command loads ~15k classes, and mapped from
   * the archive its JVM starts with about half the CPU): the launcher alone knows where it keeps it and when it is
   * fresh. Written once per build by {@link #trainClassArchive}; until then, and for a stale one, runs go without.
   */
  private static boolean freshClassArchive() {
    return execute(Map.of(), List.of(launcher().toString(), "--class-archive"), "--class-archive").exitCode() == 0;
  }

  /**
   * Writes the class archive, unless a fresh one exists, by running {@code args} (a command that uses Spark) in the
   * environment {@code prepare} makes ready for it: the launcher writes it at the command's successful exit. The
   * test JVMs (failsafe forks) take turns on a file lock, so the first writes it and the others find it. Every
   * other run only maps it ({@link #command}): the archive holds what this command loads, not what some test
   * happened to run first.
   */
  public static synchronized void trainClassArchive(Supplier<Map<String, String>> prepare, String... args) {
    Path lockFile = jar().resolveSibling("class-archive.lock");
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      if (freshClassArchive()) {
        return;
      }
      Result r = execute(prepare.get(), command(true, List.of(), args), args);
      if (r.exitCode() != 0 || !freshClassArchive()) {
        throw new AssertionError("training the class archive failed: " + r);
      }
    } catch (IOException e) {
      throw new AssertionError("cannot lock " + lockFile, e);
    }
  }

  /**
   * What a command gave back. {@code evidence} is what the test gathered when a command failed without a word, which
   * a tidemark command never should (every failure is a line on stderr): the state of the disks its output went to,
   * the end of its log.
   */
  public record Result(int exitCode, String out, String err, double seconds, String evidence) {
    public Result(int exitCode, String out, String err, double seconds) {
      this(exitCode, out, err, seconds, "");
    }

    public List<String> errLines() {
      return err.isBlank() ? List.of() : List.of(err.strip().split("\n"));
    }

    @Override
    public String toString() {
      return "exit " + exitCode + " after " + String.format("%.1f", seconds) + " s\n--- stdout\n" + out
          + "--- stderr\n" + err + (evidence.isEmpty() ? "" : "--- a failure without a word\n" + evidence);
    }
  }

  /** {@code env} with the crash hook set: the command halts the JVM at that point (see CrashHook). */
  public static Map<String, String> crashing(Map<String, String> env, String hook) {
    Map<String, String> out = new HashMap<>(env);
    out.put(CrashHook.VARIABLE, hook);
    return out;
  }

  public static Path jar() {
    // absolute: an archive of classes is only used with the same class path it was written with
    Path jar = Path.of(System.getProperty("tidemark.jar", "target/tidemark.jar")).toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("missing " + jar + ": integration tests run after `mvn package`");
    }
    return jar;
  }

  /** The launcher the build writes next to the jar: every tidemark JVM starts through it. */
  public static Path launcher() {
    Path launcher = jar().resolveSibling("tidemark");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException("missing " + launcher + ": integration tests run after `mvn package`");
    }
    return launcher;
  }

  /**
   * The JVM options the launcher gives a tidemark JVM (its defaults: no TIDEMARK_JAVA_OPTS of the test JVM leaks
   * in), for the JVMs the tests start otherwise: on a classpath of their own, or through spark-submit.
   */
  public static synchronized List<String> javaOptions() {
    if (javaOptions == null) {
      Result r = execute(Map.of(), List.of(launcher().toString(), "--java-options"), "--java-options");
      if (r.exitCode() != 0) {
        throw new AssertionError("the launcher's --java-options failed: " + r);
      }
      javaOptions = r.out().isBlank() ? List.of() : List.of(r.out().strip().split("\n"));
    }
    return javaOptions;
  }

  public static Result run(Map<String, String> env, String... args) {
    return run(env, List.of(), args);
  }

  /**
   * With JVM options after the launcher's ({@code -D...}: the launcher's {@code -J<option>}). Without them, a command
   * on the test stack's home and services is handed to the suite's resident driver, as the launcher hands a user's
   * to theirs ({@link SuiteDriver}).
   */
  public static Result run(Map<String, String> env, List<String> jvmArgs, String... args) {
    Map<String, String> routed = jvmArgs.isEmpty() ? SuiteDriver.route(env, args) : env;
    return execute(routed, command(false, jvmArgs, args), args);
  }

  /** In a JVM of its own, never the suite's driver: for tests whose subject is that JVM (its start, its errors). */
  public static Result inJvm(Map<String, String> env, String... args) {
    return execute(env, command(false, List.of(), args), args);
  }

  /** The main class on a classpath of the caller's choosing ({@code -cp ...} in {@code jvmArgs}). */
  public static Result runMain(Map<String, String> env, List<String> jvmArgs, String... args) {
    List<String> cmd = new ArrayList<>(List.of(java()));
    cmd.addAll(javaOptions());
    cmd.addAll(jvmArgs);
    cmd.addAll(List.of(System.getProperty("tidemark.add-opens", "").split(" ")));
    cmd.removeIf(String::isBlank);
    cmd.add("io.tidemark.cli.Tidemark");
    cmd.addAll(List.of(args));
    return execute(env, cmd, args);
  }

  /**
   * The command line of {@code tidemark args} through the launcher, with this JVM's java and the class archive
   * mapped, never written (see {@link #trainClassArchive}); the rest of the environment is the caller's to give.
   */
  public static List<String> command(String... args) {
    return command(false, List.of(), args);
  }

  private static List<String> command(boolean train, List<String> jvmArgs, String... args) {
    // env(1) execs the launcher, which execs java (but when it writes the archive): the process is the JVM, as a
    // kill of it expects
    List<String> cmd = new ArrayList<>(List.of("env", "TIDEMARK_JAVA=" + java(),
        "TIDEMARK_CLASS_ARCHIVE=" + (train ? "train" : "map"), launcher().toString()));
    jvmArgs.forEach(a -> cmd.add("-J" + a));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The environment of a command's process: {@code env} and the test JVM's own but its TIDEMARK_* variables. */
  private static void environment(ProcessBuilder pb, Map<String, String> env) {
    pb.environment().keySet().removeIf(k -> k.startsWith("TIDEMARK_"));
    pb.environment().putAll(env);
  }

  /**
   * Runs the command in this JVM, on the test suite's SparkSession (warm, so a stage takes seconds where a fresh JVM
   * takes half a minute): the same command line, the same code and services, exit code and output as the jar gives.
   * For tests whose subject is not the JVM's start; what only a JVM of its own shows (a crash hook, which halts
   * the JVM; the libraries' logs kept off the console) needs {@link #run}. Refused for an environment whose Spark
   * settings differ from the suite's session: a session's catalog is made once, and would quietly answer for
   * another stack. The suite's session is a writer's, on the staging branch: a reading command (sql, check, report)
   * run here reads the staging branch, not the published one as in a JVM of its own. The runtime settings a command puts on the shared session are put back afterwards.
   */
  public static Result inProcess(Map<String, String> env, String... args) {
    if (env.containsKey(CrashHook.VARIABLE)) {
      throw new IllegalArgumentException("a crash hook halts the JVM: run it with Cli.run");
    }
    TestStack stack = TestStack.get();
    TidemarkConfig config = TidemarkConfig.of(env, Map.of());
    if (!config.home().equals(stack.config().home())
        || !SparkSessions.conf(config.writing(), new Services(config).endpoints())
            .equals(SparkSessions.conf(stack.config(), stack.endpoints()))) {
      throw new IllegalArgumentException("not the test stack's Spark settings: run it with Cli.run");
    }
    // the session's own settings: through spark.conf() Spark refuses to set back its core settings (the app name)
    SQLConf conf = stack.spark().sessionState().conf();
    Map<String, String> before = JavaConverters.mapAsJavaMap(conf.getAllConfs());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Tidemark.commandLine(env);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    long t0 = System.nanoTime();
    int code;
    try {
      code = cl.execute(args);
    } finally {
      JavaConverters.mapAsJavaMap(conf.getAllConfs()).forEach((k, v) -> {
        if (!before.containsKey(k)) {
          conf.unsetConf(k);
        } else if (!before.get(k).equals(v)) {
          conf.setConfString(k, before.get(k));
        }
      });
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    System.out.printf("[cli in this JVM] tidemark %s -> exit %d in %.1f s%n", String.join(" ", args), code, seconds);
    return new Result(code, out.toString(), err.toString(), seconds);
  }

  /**
   * Seen once under a full run's load: {@code restate audit} exited 1 with empty stdout and stderr, where it prints
   * its checks and a line. Output that vanishes points at its files (a full disk: a PrintStream swallows the write's
   * error); the command's own log says how far it got.
   */
  private static String evidence(Map<String, String> env, Path output) {
    StringBuilder b = new StringBuilder();
    Path home = Path.of(env.getOrDefault("TIDEMARK_HOME", ".tidemark")).toAbsolutePath();
    for (Path p : List.of(output, home)) {
      try {
        FileStore store = Files.getFileStore(Files.exists(p) ? p : p.getParent());
        b.append(String.format("%s: %d MB usable of %d MB%n", p, store.getUsableSpace() >> 20,
            store.getTotalSpace() >> 20));
      } catch (IOException | RuntimeException e) {
        b.append(p).append(": ").append(e).append('\n');
      }
    }
    try (Stream<Path> logs = Files.list(home.resolve("logs"))) {
      Optional<Path> newest = logs.max(Comparator.comparing((Path f) -> {
        try {
          return Files.getLastModifiedTime(f);
        } catch (IOException e) {
          return FileTime.fromMillis(0);
        }
      }));
      if (newest.isPresent()) {
        List<String> lines = Files.readAllLines(newest.get(), StandardCharsets.UTF_8);
        b.append("the end of ").append(newest.get()).append(":\n");
        lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(l -> b.append(l).append('\n'));
      } else {
        b.append("no log in ").append(home.resolve("logs")).append('\n');
      }
    } catch (IOException | RuntimeException e) {
      b.append("no log: ").append(e).append('\n');
    }
    return b.toString();
  }

  /**
   * The command with its standard output and error going to {@code output} (a file, or /dev/full: a disk with no space
   * left, where every write fails): its exit code; the text is wherever it went.
   */
  public static Result runTo(Map<String, String> env, Path output, String... args) {
    List<String> cmd = command(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
        .redirectError(ProcessBuilder.Redirect.appendTo(output.toFile()));
    environment(pb, env);
    try {
      long t0 = System.nanoTime();
      Process p = pb.start();
      if (!p.waitFor(timeoutSeconds(args), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("tidemark " + String.join(" ", args) + " hung for " + timeoutSeconds(args) + " s");
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("[cli] tidemark %s > %s -> exit %d in %.1f s%n", String.join(" ", args), output,
          p.exitValue(), seconds);
      return new Result(p.exitValue(), "", "", seconds);
    } catch (IOException e) {
      throw new AssertionError("cannot run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Starts {@code tidemark args} and returns at once, e.g. to kill it mid-run. */
  public static Process start(Map<String, String> env, String... args) {
    List<String> cmd = command(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    environment(pb, env);
    try {
      return pb.start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + cmd, e);
    }
  }

  /**
   * Where a command ran, for the test log: the launcher decides (a driver when one is there to ask and the command is
   * one it runs, else a JVM), and says so only when a driver it expected did not serve; this repeats its rule, so that
   * a slow test's commands can be told apart (a JVM costs seconds of CPU, a driver's command a fraction).
   */
  private static String where(Map<String, String> env, List<String> cmd, Result r, String... args) {
    List<String> argList = List.of(args);
    if (Handoff.command(argList).isEmpty()) {
      return "";
    }
    boolean toDriver = !"off".equals(env.get("TIDEMARK_DRIVER")) && cmd.stream().noneMatch(a -> a.startsWith("-J"))
        && (env.containsKey(DriverAddress.ADDRESS_ENV)
            || Files.exists(Handoff.home(argList, env, Path.of("").toAbsolutePath()).resolve("run/driver.sock")));
    if (Handoff.asksStatus(argList) && toDriver && r.exitCode() == 0) {
      return " answered by a driver";
    }
    if (!toDriver || !Handoff.runs(argList, env)) {
      return " in a JVM";
    }
    if (r.err().contains("running the command in a JVM of its own")) {
      return " in a JVM, the driver did not serve it";
    }
    return env.containsKey(DriverAddress.ADDRESS_ENV) ? " via a driver" : " via the home's driver";
  }

  private static long timeoutSeconds(String... args) {
    return args.length > 0 && args[0].equals("bench") ? BENCH_TIMEOUT_SECONDS : TIMEOUT_SECONDS;
  }

  /** The last lines of a command's output file, for a failure's message. */
  private static String tail(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())) + "\n";
  }

  private static Result execute(Map<String, String> env, List<String> cmd, String... args) {
    try {
      Path out = Files.createTempFile("tidemark-cli", ".out");
      Path err = Files.createTempFile("tidemark-cli", ".err");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
      environment(pb, env);
      long t0 = System.nanoTime();
      Process p = pb.start();
      if (!p.waitFor(timeoutSeconds(args), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor();
        // what it printed says how far it got: a slow step tells a hang from a machine too busy
        throw new AssertionError("tidemark " + String.join(" ", args) + " hung for " + timeoutSeconds(args)
            + " s; it printed:\n" + tail(out) + "--- stderr\n" + tail(err));
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8), seconds);
      if (r.exitCode() != 0 && r.out().isEmpty() && r.err().isEmpty()) {
        r = new Result(r.exitCode(), r.out(), r.err(), seconds, evidence(env, out));
      }
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
      System.out.printf("[cli%s] tidemark %s -> exit %d in %.1f s%n", where(env, cmd, r, args),
          String.join(" ", args), r.exitCode(), seconds);
      return r;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
