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
 * A tidemark command in a JVM of its own, started as a person or an Airflow task starts it (the launcher next to the
 * jar, which alone knows how a tidemark JVM starts) on a benchmark's scoped pipeline, timed from start to exit.
 */
final class FreshJvm {
  /**
   * What one command did: its exit code, its output (stdout and stderr), its time from start to exit, and the CPU
   * time (user + system) of its processes, NaN when it was not measured.
   */
  record Run(int exit, String output, double seconds, double cpuSeconds) {}

  /** Whether the launcher maps the class archive next to the jar (writing it first when there is none), or not. */
  enum ClassArchive {
    OFF("off"), MAP("map"), TRAIN("train");

    private final String setting;

    ClassArchive(String setting) {
      this.setting = setting;
    }
  }

  /** The exit code of a command killed for taking longer than its time-out. */
  static final int TIMED_OUT = -1;

  private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s\\s+(\\d+)m([\\d.]+)s");

  private final List<String> options;
  private final ClassArchive archive;
  private final Path dir;
  private final boolean viaDriver;

  /**
   * {@code options}: the JVM's (TIDEMARK_JAVA_OPTS), null for the launcher's own; {@code dir}: where the output is
   * kept while it runs.
   */
  FreshJvm(List<String> options, ClassArchive archive, Path dir) {
    this(options, archive, dir, false);
  }

  private FreshJvm(List<String> options, ClassArchive archive, Path dir, boolean viaDriver) {
    this.options = options == null ? null : List.copyOf(options);
    this.archive = archive;
    this.dir = dir;
    this.viaDriver = viaDriver;
  }

  /**
   * The same commands handed by the launcher to the resident driver of the pipeline's home, when one serves them;
   * otherwise (and by default) the launcher is told never to (TIDEMARK_DRIVER=off), so a fresh JVM is measured.
   */
  FreshJvm viaDriver() {
    return new FreshJvm(options, archive, dir, true);
  }

  /**
   * Commands started as the DAGs' tasks and a person start them: the launcher's own JVM options and its class
   * archive.
   */
  static FreshJvm asStarted(Path dir) {
    return new FreshJvm(null, ClassArchive.MAP, dir);
  }

  Run run(TidemarkConfig config, String... args) throws IOException, InterruptedException {
    return run(config, Duration.ofMinutes(10), args);
  }

  /** The command, killed (exit {@link #TIMED_OUT}) when it takes longer than {@code timeout}. */
  Run run(TidemarkConfig config, Duration timeout, String... args) throws IOException, InterruptedException {
    // bash's `times` after the command: the CPU of its JVM (and any process it started), which a busy machine blurs
    // much less than the wall time
    Path cpu = Files.createTempFile(Files.createDirectories(dir), "fresh-jvm", ".cpu");
    List<String> cmd = new ArrayList<>(List.of("bash", "-c",
        "\"$0\" \"$@\"; rc=$?; times > \"$TIDEMARK_BENCH_CPU\"; exit $rc", launcher().toString()));
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile(Files.createDirectories(dir), "fresh-jvm", ".out");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(environment(config));
    pb.environment().put("TIDEMARK_BENCH_CPU", cpu.toString());
    long t0 = System.nanoTime();
    Process p = pb.start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor();
        return new Run(TIMED_OUT, Files.readString(log, StandardCharsets.UTF_8) + "\n(killed: it did not end in "
            + timeout + ")", timeout.toSeconds(), Double.NaN);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8), seconds,
          childrenCpu(Files.readString(cpu, StandardCharsets.UTF_8)));
    } finally {
      Files.deleteIfExists(log);
      Files.deleteIfExists(cpu);
    }
  }

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

  /**
   * This process's environment with the pipeline's settings, this JVM's java, the options and the class archive's
   * use, for the launcher.
   */
  private Map<String, String> environment(TidemarkConfig config) {
    Map<String, String> env = new HashMap<>(System.getenv());
    config.describe().forEach((s, v) -> {
      if (v != null && !s.isSecret()) {
        env.put(s.env(), v);
      }
    });
    env.put("TIDEMARK_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    env.put("TIDEMARK_CLASS_ARCHIVE", archive.setting);
    if (viaDriver) {
      env.remove("TIDEMARK_DRIVER");
    } else {
      env.put("TIDEMARK_DRIVER", "off");
    }
    if (options == null) {
      env.remove("TIDEMARK_JAVA_OPTS");
    } else {
      env.put("TIDEMARK_JAVA_OPTS", String.join(" ", options));
    }
    return env;
  }

  /** The class archive the launcher maps, when there is a fresh one next to the jar. */
  static java.util.Optional<Path> classArchive() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(launcher().toString(), "--class-archive").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return p.waitFor() == 0 && !out.isEmpty() ? java.util.Optional.of(Path.of(out)) : java.util.Optional.empty();
  }

  /** The jar these classes came from. */
  static Path jar() {
    try {
      return Path.of(FreshJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The launcher next to the jar these classes came from (what the build writes into jobs/target). */
  static Path launcher() {
    Path launcher = jar().resolveSibling("tidemark");
    if (!Files.isExecutable(launcher)) {
      throw new IllegalStateException("no launcher next to " + jar() + ": fresh JVMs start through jobs/target/"
          + "tidemark, which `mvn package` writes");
    }
    return launcher;
  }
}
