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
 * A tidemark command in a JVM of its own, started as a person or an Airflow task starts it ({@code java [options]
 * -jar tidemark.jar ...}) on a benchmark's scoped pipeline, timed from start to exit.
 */
final class FreshJvm {
  /** What one command did: its exit code, its output (stdout and stderr), its time from start to exit. */
  record Run(int exit, String output, double seconds) {}

  private final List<String> options;
  private final Path dir;

  /** {@code options}: for the JVM; {@code dir}: where the output is kept while it runs. */
  FreshJvm(List<String> options, Path dir) {
    this.options = List.copyOf(options);
    this.dir = dir;
  }

  Run run(TidemarkConfig config, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(options);
    cmd.add("-jar");
    cmd.add(jar().toString());
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
