package io.tidemark.bench;

import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A tidemark command in a JVM of its own, started as a person or an Airflow task starts it (the launcher next to the
 * jar, which alone knows how a tidemark JVM starts) on a benchmark's scoped pipeline, timed from start to exit.
 */
final class FreshJvm {
  /** What one command did: its exit code, its output (stdout and stderr), its time from start to exit. */
  record Run(int exit, String output, double seconds) {}

  /** Whether the launcher maps the class archive next to the jar (writing it first when there is none), or not. */
  enum ClassArchive {
    OFF("off"), MAP("map"), TRAIN("train");

    private final String setting;

    ClassArchive(String setting) {
      this.setting = setting;
    }
  }

  private final List<String> options;
  private final ClassArchive archive;
  private final Path dir;

  /**
   * {@code options}: the JVM's (TIDEMARK_JAVA_OPTS), null for the launcher's own; {@code dir}: where the output is
   * kept while it runs.
   */
  FreshJvm(List<String> options, ClassArchive archive, Path dir) {
    this.options = options == null ? null : List.copyOf(options);
    this.archive = archive;
    this.dir = dir;
  }

  Run run(TidemarkConfig config, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(launcher().toString());
    cmd.addAll(List.of(args));
    Path log = Files.createTempFile(Files.createDirectories(dir), "fresh-jvm", ".out");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().clear();
    pb.environment().putAll(environment(config));
    long t0 = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("tidemark " + String.join(" ", args) + " did not end in 10 minutes");
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    return new Run(p.exitValue(), output, seconds);
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

  /** The launcher next to the jar these classes came from (what the build writes into jobs/target). */
  static Path launcher() {
    try {
      Path jar = Path.of(FreshJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path launcher = jar.resolveSibling("tidemark");
      if (!Files.isExecutable(launcher)) {
        throw new IllegalStateException("no launcher next to " + jar + ": fresh JVMs start through jobs/target/"
            + "tidemark, which `mvn package` writes");
      }
      return launcher;
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
