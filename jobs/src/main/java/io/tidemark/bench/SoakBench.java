package io.tidemark.bench;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Many arrivals of realistic size, each through {@code land}, {@code stream all} and {@code publish} in JVMs of their
 * own started by the launcher, as the arrivals DAG runs them; in one pipeline {@code maintain compact} every N
 * arrivals as the maintenance DAG runs it, and the same arrivals side by side in one never compacted. It reports
 * every failure with the trace from its run's log and goes on, as the next arrival of the DAG would; and it
 * measures, per arrival, the time (wall and CPU) of {@code stream all} and {@code publish}, and what grows: the
 * tables' snapshots, data files and manifests, their metadata, the stream-batches table, the checkpoints.
 *
 * <p>Each pipeline lives in a namespace, landing bucket, checkpoints and Nessie branches of its own
 * ({@code soak_*}), never the configured ones. Printed, never asserted.
 */
public final class SoakBench {
  /**
   * @param arrivals arrivals of the generated scenario
   * @param eventsPerArrival events of each (the generator's distinct events over the arrivals)
   * @param changesPerArrival company changes of each
   * @param keys companies the changes are about
   * @param seed the generator's seed
   * @param compactEvery {@code maintain compact} after every so many arrivals in the compacted pipeline; 0: none
   * @param plain whether the never compacted pipeline runs beside it
   * @param busyThreads threads that keep a CPU busy in this process beside the commands
   * @param timeout how long a command may take before it is killed (and reported)
   * @param keep whether the pipelines' branches stay when the soak ends
   */
  public record Options(int arrivals, int eventsPerArrival, int changesPerArrival, int keys, long seed,
                        int compactEvery, boolean plain, int busyThreads, Duration timeout, boolean keep) {}

  private static final Pattern DETAILS = Pattern.compile("\\[details in (\\S+?)[;\\]]");
  private static final Pattern FAILED_ENTRY = Pattern.compile("\\bERROR\\b.* failed$");

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;
  private final FreshJvm jvm;
  private final Map<String, Integer> warnings = new TreeMap<>();
  private int failures;
  /** This JVM's session, which measures the tables: on a soak pipeline's branch, as the configured one may not be. */
  private Lakehouse measuring;

  public SoakBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
    this.jvm = FreshJvm.asStarted(dir.resolve("tmp"));
  }

  /** One pipeline of the soak and what it measured, per arrival. */
  private static final class Pipeline {
    final String label;
    final int compactEvery;
    final TidemarkConfig config;
    final Map<Integer, double[]> times = new TreeMap<>();

    Pipeline(String label, int compactEvery, TidemarkConfig config) {
      this.label = label;
      this.compactEvery = compactEvery;
      this.config = config;
    }
  }

  // what a pipeline's arrival measured, in times[]
  private static final int STREAM = 0;
  private static final int STREAM_CPU = 1;
  private static final int PUBLISH = 2;
  private static final int PUBLISH_CPU = 3;

  public void run(Options o) throws Exception {
    Files.createDirectories(dir);
    Path landed = landed(o);
    List<Pipeline> pipelines = new ArrayList<>();
    String run = Long.toHexString(System.currentTimeMillis() & 0xffffff);
    if (o.compactEvery() > 0) {
      pipelines.add(pipeline("compacted", o.compactEvery(), run));
    }
    if (o.plain() || o.compactEvery() == 0) {
      pipelines.add(pipeline("plain", 0, run));
    }
    Path csv = dir.resolve("soak-" + run + ".csv");
    Files.writeString(csv, "arrival,pipeline,stream_s,stream_cpu_s,stream_exit,publish_s,publish_cpu_s,publish_exit,"
        + "compact_s,snapshots,data_files,delete_files,manifests,metadata_kb,batches_rows,checkpoint_files,"
        + "checkpoint_kb\n");
    out.printf(Locale.ROOT, "soak: %d arrivals of %d events and %d company changes (--keys %d), through land, stream "
        + "all and publish in fresh JVMs (%s); pipelines: %s; %d busy thread(s) beside; a line per arrival and "
        + "pipeline also in %s%n", o.arrivals(), o.eventsPerArrival(), o.changesPerArrival(), o.keys(),
        jarDir().resolve("tidemark"), String.join(", ", pipelines.stream().map(p -> p.label
            + (p.compactEvery > 0 ? " (maintain compact every " + p.compactEvery + ")" : " (never compacted)"))
            .toList()), o.busyThreads(), csv);
    header();
    List<Thread> busy = busy(o.busyThreads());
    long t0 = System.nanoTime();
    try {
      for (int k = 1; k <= o.arrivals(); k++) {
        for (Pipeline p : pipelines) {
          arrival(p, k, landed, o.timeout(), csv);
        }
      }
    } finally {
      busy.forEach(Thread::interrupt);
      if (measuring != null) {
        measuring.close();
      }
      if (!o.keep()) {
        dropBranches(pipelines);
      }
    }
    out.printf(Locale.ROOT, "%n== %d arrivals in %.1f h, %d failure(s)%n", o.arrivals(), (System.nanoTime() - t0)
        / 3.6e12, failures);
    summary(pipelines, o.arrivals());
    if (!warnings.isEmpty()) {
      out.println("== warnings in the commands' logs (logger and message, numbers as #): count");
      warnings.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(40)
          .forEach(e -> out.printf(Locale.ROOT, "%6d  %s%n", e.getValue(), e.getKey()));
    }
    out.flush();
  }

  /** The arrivals, generated once into a local directory by `land --to-dir`, kept for the next soak of that size. */
  private Path landed(Options o) throws Exception {
    Path landed = dir.resolve(String.format(Locale.ROOT, "landed-%d-%dx%d-%d-%d", o.seed(), o.arrivals(),
        o.eventsPerArrival(), o.changesPerArrival(), o.keys()));
    Path done = landed.resolve("_complete");
    if (!Files.exists(done)) {
      long t0 = System.nanoTime();
      FreshJvm.Run r = jvm.run(base.config(), Duration.ofHours(1), "land", "--scenario", "generated", "--seed",
          Long.toString(o.seed()), "--events", Long.toString((long) o.eventsPerArrival() * o.arrivals()), "--arrivals",
          Integer.toString(o.arrivals()), "--changes", Long.toString((long) o.changesPerArrival() * o.arrivals()),
          "--keys", Integer.toString(o.keys()), "--to-dir", landed.toString());
      if (r.exit() != 0) {
        throw new IllegalStateException("cannot generate the arrivals: " + r.output().strip());
      }
      Files.createFile(done);
      out.printf(Locale.ROOT, "generated the arrivals into %s in %.1f s%n", landed, (System.nanoTime() - t0) / 1e9);
    }
    return landed;
  }

  /** A pipeline on branches of its own, bootstrapped as a person does it. */
  private Pipeline pipeline(String label, int compactEvery, String run) throws Exception {
    String name = "soak_" + label + "_" + run;
    String branches = name.replace('_', '-');
    TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name)).with(Map.of(Setting.NESSIE_REF,
        branches + "-main", Setting.STAGING_BRANCH, branches + "-ingest"));
    try (NessieRefs refs = new NessieRefs(base.endpoints())) {
      // bootstrap makes the staging branch from the published one, which must exist: made from Nessie's default
      refs.ensureBranch(config.publishedRef(), refs.defaultBranch());
      if (refs.log(config.publishedRef()).findFirst().isEmpty()) {
        refs.mark(config.publishedRef(), "tidemark bench soak: the published branch of " + name,
            SparkSessions.AUTHOR, Map.of());
      }
    }
    FreshJvm.Run r = jvm.run(config, "bootstrap");
    if (r.exit() != 0) {
      throw new IllegalStateException("bootstrap of " + name + " failed: " + r.output().strip());
    }
    return new Pipeline(label, compactEvery, config);
  }

  private void arrival(Pipeline p, int k, Path landed, Duration timeout, Path csv) throws Exception {
    String arrival = Integer.toString(k);
    FreshJvm.Run land = command(p, k, timeout, "land", "--replay", landed.toString(), "--arrival", arrival);
    FreshJvm.Run stream = command(p, k, timeout, "stream", "all");
    FreshJvm.Run publish = command(p, k, timeout, "publish");
    double compact = Double.NaN;
    if (p.compactEvery > 0 && k % p.compactEvery == 0) {
      // as the maintenance DAG's compact task runs it
      compact = command(p, k, timeout, "maintain", "compact", "--min-input-files", "5").seconds();
    }
    Growth g = growth(p.config);
    p.times.put(k, new double[] {stream.exit() == 0 ? stream.seconds() : Double.NaN, stream.cpuSeconds(),
        publish.exit() == 0 ? publish.seconds() : Double.NaN, publish.cpuSeconds()});
    String exits = land.exit() == 0 && stream.exit() == 0 && publish.exit() == 0 ? "" : String.format(Locale.ROOT,
        "  exit land %d, stream all %d, publish %d", land.exit(), stream.exit(), publish.exit());
    out.printf(Locale.ROOT, "%7d %-9s %6s %8.1f %6.1f %9.1f %6.1f %8s | %6d %6d %5d %6d %8d %7d %7d %8d%s%n", k,
        p.label, LocalTime.now().truncatedTo(ChronoUnit.SECONDS), stream.seconds(), stream.cpuSeconds(),
        publish.seconds(), publish.cpuSeconds(), Double.isNaN(compact) ? "" : String.format(Locale.ROOT, "%.1f",
            compact), g.snapshots, g.dataFiles, g.deleteFiles, g.manifests, g.metadataKb, g.batchesRows,
        g.checkpointFiles, g.checkpointKb, exits);
    out.flush();
    Files.writeString(csv, String.format(Locale.ROOT, "%d,%s,%.2f,%.2f,%d,%.2f,%.2f,%d,%s,%d,%d,%d,%d,%d,%d,%d,%d%n",
        k, p.label, stream.seconds(), stream.cpuSeconds(), stream.exit(), publish.seconds(), publish.cpuSeconds(),
        publish.exit(), Double.isNaN(compact) ? "" : String.format(Locale.ROOT, "%.2f", compact), g.snapshots,
        g.dataFiles, g.deleteFiles, g.manifests, g.metadataKb, g.batchesRows, g.checkpointFiles, g.checkpointKb),
        StandardOpenOption.APPEND);
  }

  private void header() {
    out.printf(Locale.ROOT, "%7s %-9s %8s %8s %6s %9s %6s %8s | %6s %6s %5s %6s %8s %7s %7s %8s%n", "arrival",
        "pipeline", "at", "stream s", "cpu s", "publish s", "cpu s", "compact", "snaps", "files", "dels", "manif",
        "meta KB", "batches", "ckpt f", "ckpt KB");
  }

  /**
   * A command of the arrival in a fresh JVM; a failure is reported at once with the trace from its run's log (copied
   * next to the soak's output: the logs of a command's older runs are deleted), and the soak goes on.
   */
  private FreshJvm.Run command(Pipeline p, int k, Duration timeout, String... args) throws Exception {
    String command = String.join("-", Arrays.stream(args).takeWhile(a -> !a.startsWith("-")).toList());
    long started = System.currentTimeMillis();
    FreshJvm.Run r = jvm.run(p.config, timeout, args);
    Optional<Path> log = logOf(p.config, command, started, r.output());
    log.ifPresent(this::countWarnings);
    if (r.exit() != 0) {
      failures++;
      out.printf(Locale.ROOT, "== FAILURE %d: arrival %d, %s pipeline: tidemark %s exited %d after %.1f s%n",
          failures, k, p.label, String.join(" ", args), r.exit(), r.seconds());
      r.output().lines().filter(l -> l.startsWith("tidemark:") || l.startsWith("(killed"))
          .forEach(l -> out.println("   " + l));
      if (log.isPresent()) {
        Path kept = Files.createDirectories(dir.resolve("failures")).resolve(String.format(Locale.ROOT,
            "arrival-%04d-%s-%s.log", k, p.label, command));
        Files.copy(log.get(), kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        out.println("   the trace, from " + log.get() + " (kept as " + kept + "):");
        trace(kept).forEach(l -> out.println("     " + l));
      } else {
        out.println("   (no log of the run found; its output:)");
        r.output().lines().limit(60).forEach(l -> out.println("     " + l));
      }
      out.flush();
    }
    return r;
  }

  /** The run's log: the one its failure line names, else the newest of the command's logs begun since it started. */
  private static Optional<Path> logOf(TidemarkConfig config, String command, long started, String output)
      throws IOException {
    Matcher m = DETAILS.matcher(output);
    if (m.find() && Files.isRegularFile(Path.of(m.group(1)))) {
      return Optional.of(Path.of(m.group(1)));
    }
    Path logs = config.home().resolve("logs");
    if (!Files.isDirectory(logs)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(logs)) {
      return files.filter(f -> f.getFileName().toString().matches("tidemark-" + Pattern.quote(command)
          + "-[0-9].*\\.log")).filter(f -> modified(f) >= started - 1000)
          .max(java.util.Comparator.comparing(f -> f.getFileName().toString()));
    }
  }

  private static long modified(Path f) {
    try {
      return Files.getLastModifiedTime(f).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  /** The failure's entry in a log and its stack (the last "... failed" ERROR entry to the end), at most 200 lines. */
  static List<String> trace(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    int from = 0;
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (FAILED_ENTRY.matcher(lines.get(i)).find()) {
        from = i;
        break;
      }
    }
    if (from == 0 && lines.size() > 200) {
      from = lines.size() - 200;
    }
    return lines.subList(from, Math.min(lines.size(), from + 200));
  }

  /** Tallies the log's warnings and errors by logger and message, numbers and hashes made alike. */
  private void countWarnings(Path log) {
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      lines.filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).map(SoakBench::kind)
          .forEach(k -> warnings.merge(k, 1, Integer::sum));
    } catch (IOException | UncheckedIOException e) {
      // a log the next command's pruning took: its warnings go uncounted
    }
  }

  static String kind(String line) {
    int at = Math.max(line.indexOf(" WARN "), line.indexOf(" ERROR "));
    String k = line.substring(at + 1).replaceAll("[0-9a-f]{8,}", "#").replaceAll("\\d+", "#");
    return k.length() > 140 ? k.substring(0, 140) : k;
  }

  /** What grows, for one pipeline, on its staging branch. */
  private record Growth(int snapshots, long dataFiles, long deleteFiles, int manifests, long metadataKb,
                        long batchesRows, long checkpointFiles, long checkpointKb) {}

  /**
   * Summed over the pipeline's tables on its staging branch: snapshots in their metadata, live data and delete
   * files, manifests of the current snapshot, the size of the metadata files; the stream-batches table's rows; the
   * files and size of the checkpoints.
   */
  private Growth growth(TidemarkConfig config) {
    int snapshots = 0;
    long data = 0;
    long deletes = 0;
    int manifests = 0;
    long metadata = 0;
    long batches = 0;
    if (measuring == null) {
      measuring = Lakehouse.open(config, "tidemark bench soak");
    }
    for (TableName t : config.pipeline().tables()) {
      Table table;
      try {
        table = IcebergTables.load(measuring.spark(), t.sqlAt(config.stagingBranch()));
      } catch (RuntimeException e) {
        out.println("cannot measure " + t + ": " + e.getMessage());
        continue;
      }
      Snapshot current = table.currentSnapshot();
      for (Snapshot ignored : table.snapshots()) {
        snapshots++;
      }
      if (current != null) {
        data += Long.parseLong(current.summary().getOrDefault(SnapshotSummary.TOTAL_DATA_FILES_PROP, "0"));
        deletes += Long.parseLong(current.summary().getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "0"));
        manifests += current.allManifests(table.io()).size();
        if (t.equals(config.pipeline().shared().streamBatches())) {
          batches = Long.parseLong(current.summary().getOrDefault(SnapshotSummary.TOTAL_RECORDS_PROP, "0"));
        }
      }
      metadata += newestMetadataFile(table) / 1024;
    }
    long[] checkpoint = files(Path.of(config.checkpointRoot()));
    return new Growth(snapshots, data, deletes, manifests, metadata, batches, checkpoint[0], checkpoint[1] / 1024);
  }

  /**
   * Bytes of the newest metadata file in the table's metadata directory: the head of its staging branch, as only
   * this pipeline writes its tables and a merge into the published branch writes none (listed through the FileIO's
   * public prefix operations, not the table's operations, which are Iceberg's internals).
   */
  private static long newestMetadataFile(Table table) {
    if (!(table.io() instanceof SupportsPrefixOperations files)) {
      return 0;
    }
    FileInfo newest = null;
    for (FileInfo f : files.listPrefix(table.location() + "/metadata/")) {
      boolean metadata = f.location().endsWith(".metadata.json");
      if (metadata && (newest == null || f.createdAtMillis() > newest.createdAtMillis())) {
        newest = f;
      }
    }
    return newest == null ? 0 : newest.size();
  }

  /** Files under a local directory and their bytes. */
  private static long[] files(Path root) {
    if (!Files.isDirectory(root)) {
      return new long[2];
    }
    long[] n = new long[2];
    try (Stream<Path> all = Files.walk(root)) {
      all.filter(Files::isRegularFile).forEach(f -> {
        n[0]++;
        n[1] += f.toFile().length();
      });
    } catch (IOException | UncheckedIOException e) {
      // a file a stream's clean-up took while walking: the count is a little off
    }
    return n;
  }

  /**
   * Per pipeline, the median time of `stream all` and `publish` over the first and the last tenth of the arrivals
   * (the first arrival left out: it creates the state and the tables' first files), their ratio, and the growth a
   * least-squares line over all arrivals gives from the first to the last, in per cent of its start; failed runs
   * are left out.
   */
  private void summary(List<Pipeline> pipelines, int arrivals) {
    int tenth = Math.max(1, arrivals / 10);
    out.printf(Locale.ROOT, "%-10s %-14s %12s %12s %7s %14s%n", "pipeline", "command", "first " + tenth + " s",
        "last " + tenth + " s", "ratio", "fitted growth");
    for (Pipeline p : pipelines) {
      for (int[] what : new int[][] {{STREAM, 0}, {STREAM_CPU, 1}, {PUBLISH, 2}, {PUBLISH_CPU, 3}}) {
        String name = switch (what[1]) {
          case 0 -> "stream all";
          case 1 -> "  cpu";
          case 2 -> "publish";
          default -> "  cpu";
        };
        double first = median(p, what[0], 2, 1 + tenth);
        double last = median(p, what[0], arrivals - tenth + 1, arrivals);
        out.printf(Locale.ROOT, "%-10s %-14s %12.1f %12.1f %6.2fx %13.0f%%%n", p.label, name, first, last,
            last / first, fittedGrowth(p, what[0], arrivals) * 100);
      }
    }
  }

  private static double median(Pipeline p, int what, int from, int to) {
    double[] v = p.times.entrySet().stream().filter(e -> e.getKey() >= from && e.getKey() <= to)
        .mapToDouble(e -> e.getValue()[what]).filter(d -> !Double.isNaN(d)).sorted().toArray();
    return v.length == 0 ? Double.NaN : LatencyBench.quantile(v, 0.5);
  }

  /** (fitted value at the last arrival - at the second) / at the second, over arrivals 2.. (failures left out). */
  static double fittedGrowth(Map<Integer, double[]> times, int what, int arrivals) {
    double n = 0;
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (Map.Entry<Integer, double[]> e : times.entrySet()) {
      double y = e.getValue()[what];
      if (e.getKey() < 2 || Double.isNaN(y)) {
        continue;
      }
      double x = e.getKey();
      n++;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    if (n < 3) {
      return Double.NaN;
    }
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double intercept = (sy - slope * sx) / n;
    double start = intercept + slope * 2;
    return (slope * (arrivals - 2)) / start;
  }

  private static double fittedGrowth(Pipeline p, int what, int arrivals) {
    return fittedGrowth(p.times, what, arrivals);
  }

  /** Threads that keep CPUs busy (hashing) until interrupted: a neighbour that competes for the cores. */
  private static List<Thread> busy(int threads) {
    List<Thread> out = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        try {
          MessageDigest sha = MessageDigest.getInstance("SHA-256");
          byte[] block = new byte[1 << 16];
          while (!Thread.currentThread().isInterrupted()) {
            block = Arrays.copyOf(sha.digest(block), 1 << 16);
          }
        } catch (java.security.NoSuchAlgorithmException e) {
          throw new IllegalStateException(e);
        }
      }, "tidemark-soak-busy-" + i);
      t.setDaemon(true);
      t.start();
      out.add(t);
    }
    return out;
  }

  private void dropBranches(List<Pipeline> pipelines) {
    try (NessieRefs refs = new NessieRefs(base.endpoints())) {
      for (Pipeline p : pipelines) {
        refs.deleteBranch(p.config.stagingBranch());
        refs.deleteBranch(p.config.publishedRef());
      }
    } catch (RuntimeException e) {
      out.println("could not delete the soak's branches: " + e.getMessage());
    }
  }

  private static Path jarDir() {
    return FreshJvm.jar().getParent();
  }
}
