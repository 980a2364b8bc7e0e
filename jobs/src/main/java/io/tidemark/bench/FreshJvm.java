package io.tidemark.bench;

import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tidemark command in a JVM of its own, started as a person or an Airflow task starts it ({@code java [options]
 * -jar tidemark.jar ...}, or the launcher next to the jar) on a benchmark's scoped pipeline, timed from start to exit.
 */
final class FreshJvm {
  /**
   * What one command did: its exit code, its output (stdout and stderr), its time from start to exit, and the CPU
   * time (user + system) it took, or NaN where it was not measured (java -jar).
   */
  record Run(int exit, String output, double seconds, double cpuSeconds) {}

  private final List<String> options;
  private final Path dir;
  private final boolean launcher;

  /** {@code options}: for the JVM; {@code dir}: where the output is kept while it runs. */
  FreshJvm(List<String> options, Path dir) {
    this(options, dir, false);
  }

  private FreshJvm(List<String> options, Path dir, boolean launcher) {
    this.options = List.copyOf(options);
    this.dir = dir;
    this.launcher = launcher;
  }

  /**
   * Commands started through the launcher next to the jar ({@code tidemark ARGS}), as the DAGs' land and bootstrap
   * tasks and a person start them: its JVM options (TIDEMARK_JAVA_OPTS) and class archive; their CPU time measured.
   */
  static FreshJvm launcher(Path dir) {
    return new FreshJvm(List.of(), dir, true);
  }

  Run run(TidemarkConfig config, String... args) throws IOException, InterruptedException {
    return run(config, Duration.ofMinutes(10), args);
  }

  Run run(TidemarkConfig config, Duration timeout, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    Path cpu = null;
    if (launcher) {
      // bash's `times` after the command: the CPU of its JVM (and any process it started), which a busy machine
      // blurs much less than the wall time
      cpu = Files.createTempFile(Files.createDirectories(dir), "fresh-jvm", ".cpu");
      cmd.addAll(List.of("bash", "-c", "\"$0\" \"$@\"; rc=$?; times > \"$TIDEMARK_BENCH_CPU\"; exit $rc",
          jar().resolveSibling("tidemark").toString()));
    } else {
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(options);
      cmd.add("-jar");
      cmd.add(jar().toString());
    }
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile(Files.createDirectories(dir), "fresh-jvm", ".out");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(environment(config));
    if (cpu != null) {
      pb.environment().put("TIDEMARK_BENCH_CPU", cpu.toString());
    }
    long t0 = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Files.deleteIfExists(log);
      return new Run(TIMED_OUT, output + "\n(killed: it did not end in " + timeout + ")", timeout.toSeconds(),
          Double.NaN);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    double cpuSeconds = Double.NaN;
    if (cpu != null) {
      cpuSeconds = childrenCpu(Files.readString(cpu, StandardCharsets.UTF_8));
      Files.deleteIfExists(cpu);
    }
    return new Run(p.exitValue(), output, seconds, cpuSeconds);
  }

  /** The exit code of a command killed for taking longer than its time-out. */
  static final int TIMED_OUT = -1;

  private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s\\s+(\\d+)m([\\d.]+)s");

  /** User + system seconds of the children from bash's {@code times} (its second line), NaN when absent. */
  static double childrenCpu(String times) {
    String[] lines = times.strip().split("\n");
    Matcher m = TIMES.matcher(lines[lines.length - 1]);
    if (lines.length < 2 || !m.find()) {
      return Double.NaN;
    }
    return Integer.parseInt(m.group(1)) * 60 + Double.parseDouble(m.group(2)) + Integer.parseInt(m.group(3)) * 60
        + Double.parseDouble(m.group(4));
  }

  /** The same, failing with the command's output when it does not exit 0. */
  Run succeed(TidemarkConfig config, String... args) throws IOException, InterruptedException {
    Run r = run(config, args);
    if (r.exit() != 0) {
      throw new IllegalStateException("tidemark " + String.join(" ", args) + " failed in a fresh JVM (exit "
          + r.exit() + "): " + r.output());
    }
    return r;
  }

  /** This process's environment with the pipeline's settings, for a tidemark in another JVM. */
  private static Map<String, String> environment(TidemarkConfig config) {
    Map<String, String> env = new HashMap<>(System.getenv());
    config.describe().forEach((s, v) -> {
      if (v != null && !s.isSecret()) {
        env.put(s.env(), v);
      }
    });
    return env;
  }

  static Path jar() {
    try {
      return Path.of(FreshJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
