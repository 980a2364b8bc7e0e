package io.tidemark.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.stream.Stream;

/**
 * A real Spark standalone cluster of our exact Spark (pyspark 3.5.8 of the Airflow venv, infra/airflow/venv): a
 * master and two workers of one core and 1 GB each, separate processes on 127.0.0.1 and free ports, started once
 * per test JVM and stopped when it exits, like {@link TestStack}'s servers. Jobs go to it through
 * infra/spark/submit, whose line (dags/tidemark_lib/launch.py) the DAGs' spark-submits use too.
 */
public final class SparkCluster {
  private static final int WORKERS = 2;
  /** A hang guard, not a speed assertion. */
  private static final long SUBMIT_TIMEOUT_SECONDS = 600;
  private static SparkCluster instance;

  private final Path repo;
  private final Path dir;
  private final Path sparkHome;
  private final String masterUrl;
  private final URI masterUi;
  private final Process master;
  private final Path properties;
  private final List<Process> workers = new ArrayList<>();

  private SparkCluster() {
    repo = Path.of(System.getProperty("tidemark.repo.dir", "..")).toAbsolutePath().normalize();
    try {
      Path root = Path.of(System.getProperty("tidemark.test.home", "target/it-home")).toAbsolutePath();
      dir = Files.createDirectories(root.resolve("spark-cluster-" + ProcessHandle.current().pid()));
      sparkHome = sparkHome(repo);
      properties = dir.resolve("tidemark-test.properties");
      // infra/spark/tidemark.properties, and the JVM options the launcher gives a tidemark JVM (the JIT's first
      // tier): the tests' driver and executors live seconds, and without C2 a JVM's start takes about a third less CPU
      String jvm = String.join(" ", Cli.javaOptions());
      Files.writeString(properties, Files.readString(repo.resolve("infra/spark/tidemark.properties"))
          + "\nspark.driver.extraJavaOptions    " + jvm + "\nspark.executor.extraJavaOptions  " + jvm + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long t0 = System.nanoTime();
    // every port fixed and distinct: a worker left to pick its own could take the master UI's before it binds
    int[] ports = TestStack.freePorts(2 + 2 * WORKERS);
    int port = ports[0];
    int uiPort = ports[1];
    masterUrl = "spark://127.0.0.1:" + port;
    masterUi = URI.create("http://127.0.0.1:" + uiPort + "/json/");
    master = daemon("master", List.of("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
        Integer.toString(port), "--webui-port", Integer.toString(uiPort)));
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "tidemark-spark-cluster-down"));
    for (int i = 1; i <= WORKERS; i++) {
      workers.add(daemon("worker" + i, List.of("org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
          "--cores", "1", "--memory", "1g", "--port", Integer.toString(ports[2 * i]), "--webui-port",
          Integer.toString(ports[2 * i + 1]), "--work-dir",
          workDir(i).toString(), masterUrl)));
    }
    awaitAliveWorkers(WORKERS);
    System.out.printf("[cluster] master and %d workers up in %.1f s at %s (Spark home %s)%n", WORKERS,
        (System.nanoTime() - t0) / 1e9, masterUrl, sparkHome);
  }

  public static synchronized SparkCluster get() {
    if (instance == null) {
      instance = new SparkCluster();
    }
    return instance;
  }

  /** pip's pyspark is a Spark home (bin/, jars/); infra/airflow/venv creates the venv when missing. */
  private static Path sparkHome(Path repo) throws IOException {
    Process p = new ProcessBuilder(repo.resolve("infra/airflow/venv").toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String venv = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    try {
      if (p.waitFor() != 0 || venv.isEmpty()) {
        throw new IllegalStateException("infra/airflow/venv failed (exit " + p.exitValue() + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    try (Stream<Path> libs = Files.list(Path.of(venv, "lib"))) {
      return libs.map(l -> l.resolve("site-packages/pyspark")).filter(h -> Files.isRegularFile(h.resolve(
          "bin/spark-class"))).findFirst().orElseThrow(() -> new IllegalStateException("no pyspark in " + venv));
    }
  }

  public String masterUrl() {
    return masterUrl;
  }

  /** Where the master's and workers' logs and the workers' work dirs (executors' stdout/stderr) are. */
  public Path dir() {
    return dir;
  }

  public Path workDir(int worker) {
    return dir.resolve("work" + worker);
  }

  /**
   * The environment every Spark process of the tests gets: our Java, the Spark home, loopback only, and scratch
   * space under the cluster's directory: a driver or executor the tests kill leaves its files (the jars it fetched,
   * about 500 MB) where the build's clean removes them, not in /tmp.
   */
  private Map<String, String> sparkEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("SPARK_CONF_DIR", dir.resolve("conf").toString());
    env.put("SPARK_LOCAL_DIRS", dir.resolve("local").toString());
    return env;
  }

  private Process daemon(String name, List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(sparkHome.resolve("bin/spark-class").toString()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile());
    pb.environment().putAll(sparkEnv());
    try {
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the Spark " + name, e);
    }
  }

  private void awaitAliveWorkers(int n) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    String last = "";
    while (System.nanoTime() < deadline) {
      if (!master.isAlive()) {
        throw new IllegalStateException("the Spark master exited; see " + dir.resolve("master.log"));
      }
      try {
        last = http.send(HttpRequest.newBuilder(masterUi).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        if (aliveWorkers(last) >= n) {
          return;
        }
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      sleep(500);
    }
    throw new IllegalStateException("fewer than " + n + " Spark workers alive after 180 s; see " + dir + ": " + last);
  }

  private static long aliveWorkers(String masterJson) {
    Matcher m = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)").matcher(masterJson);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /** SIGKILL of worker {@code i} (1-based) and its executors, as when a machine dies. */
  public void killWorker(int i) {
    Process w = workers.get(i - 1);
    List<ProcessHandle> executors = w.descendants().toList();
    w.destroyForcibly();
    executors.forEach(ProcessHandle::destroyForcibly);
    try {
      w.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.out.printf("[cluster] worker%d killed (SIGKILL, with %d executor process(es))%n", i, executors.size());
  }

  /**
   * Starts {@code infra/spark/submit args} on this cluster with {@code env} (no TIDEMARK_* of the test JVM leaks
   * in), stdout and stderr to {@code out}/{@code err}; returns at once, e.g. to kill the driver mid-run.
   */
  public Process start(Map<String, String> env, Path out, Path err, String... args) {
    List<String> cmd = new ArrayList<>(List.of(repo.resolve("infra/spark/submit").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("TIDEMARK_") || k.startsWith("SPARK_"));
    pb.environment().putAll(sparkEnv());
    pb.environment().putAll(env);
    pb.environment().put("TIDEMARK_SPARK_MASTER", masterUrl);
    pb.environment().put("TIDEMARK_SPARK_PROPERTIES", properties.toString());
    pb.environment().put("TIDEMARK_JAR_DIR", Path.of(System.getProperty("tidemark.spark.jar")).getParent().toString());
    try {
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
  }

  /** Runs {@code infra/spark/submit args} to its end. */
  public Cli.Result run(Map<String, String> env, String... args) {
    return submit(env, args).result();
  }

  /** Starts {@code infra/spark/submit args}; {@link Submission#result} waits for its end. */
  public Submission submit(Map<String, String> env, String... args) {
    try {
      Path out = Files.createTempFile(dir, "submit", ".out");
      Path err = Files.createTempFile(dir, "submit", ".err");
      return new Submission(start(env, out, err, args), out, err, String.join(" ", args), System.nanoTime());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A spark-submit under way. */
  public record Submission(Process process, Path out, Path err, String command, long startNanos) {
    public Cli.Result result() {
      try {
        if (!process.waitFor(SUBMIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError("spark-submit of tidemark " + command + " hung for " + SUBMIT_TIMEOUT_SECONDS
              + " s; see " + err);
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf("[cluster] tidemark %s -> exit %d in %.1f s%n", command, process.exitValue(), seconds);
        return new Cli.Result(process.exitValue(), Files.readString(out), Files.readString(err), seconds);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  private void stop() {
    List<Process> all = new ArrayList<>(workers);
    all.add(master);
    for (Process p : all) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
    }
    for (Process p : all) {
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
