package io.tidemark.bench;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LocalLanding;
import io.tidemark.report.Charts;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.RunReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * Benchmarks of the event streams, printed as tables (and a chart), never asserted: speed of one availableNow
 * run next to DuckDB doing the same work over the same files, and how state and checkpoints grow over many
 * runs with bounded and unbounded dedup.
 */
public final class StreamBench {
  private static final String HDFS = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider";
  private static final String ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";
  private static final String PROVIDER = "spark.sql.streaming.stateStore.providerClass";

  private final SparkSession spark;
  private final PrintWriter out;
  private final Path dir;

  public StreamBench(SparkSession spark, PrintWriter out, Path dir) {
    this.spark = spark;
    this.out = out;
    this.dir = dir;
    BenchTables.namespace(spark);
  }

  /** One availableNow run of dedup and of counts per size, against DuckDB over the same files. */
  public void throughput(List<Integer> sizes, int repeat) throws Exception {
    out.println("== throughput: one availableNow run, local[2], local JSON files -> Iceberg on S3 via Nessie");
    Path warm = data("warmup", 5_000, 1);
    runDedup(warm, "warm");
    runCounts(warm, "warm");
    out.printf(Locale.ROOT, "%-8s %9s %9s %11s %9s %11s %7s   %s%n", "stream", "lines", "spark s", "spark ev/s",
        "duckdb s", "duckdb ev/s", "ratio", "where the Spark run's time goes (ms)");
    for (int size : sizes) {
      Path data = data("size-" + size, size, 1);
      long lines = lines(data);
      for (String stream : List.of("dedup", "counts")) {
        List<RunReport> spark = new ArrayList<>();
        List<Double> duck = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
          spark.add(stream.equals("dedup") ? runDedup(data, "t" + size) : runCounts(data, "t" + size));
          Path parquet = dir.resolve("duck-" + UUID.randomUUID() + ".parquet");
          duck.add(stream.equals("dedup") ? DuckDbBaseline.dedup(data, parquet)
              : DuckDbBaseline.counts(data, parquet));
        }
        RunReport best = spark.stream().min(Comparator.comparingDouble(RunReport::seconds)).orElseThrow();
        double duckBest = duck.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        out.printf(Locale.ROOT, "%-8s %9d %9.2f %11.0f %9.2f %11.0f %6.1fx   %s%n", stream, lines, best.seconds(),
            lines / best.seconds(), duckBest, lines / duckBest, best.seconds() / duckBest, where(best));
        out.flush();
      }
    }
    out.println("(best of " + repeat + " runs each; ratio = Spark time / DuckDB time, measured side by side)");
  }

  /** State rows, state memory and checkpoint size after each run, for bounded and unbounded dedup. */
  public void stateGrowth(int runs, int eventsPerRun) throws Exception {
    out.println("== state and checkpoint growth: " + runs + " runs of " + eventsPerRun + " events, event time "
        + "advancing one hour per run, dedup with a watermark of " + io.tidemark.core.Times.show(SeedPipeline.BUILT_IN.events().dedupWatermark()));
    GeneratorSpec spec = new GeneratorSpec(7, runs * eventsPerRun, 20, 0.03, 0.01, 0, 0.01, runs, 0, 1,
        GeneratorSpec.DEFAULT_START, 60);
    Path landing = dir.resolve("state-data");
    deleteRecursively(landing);
    Map<String, Series> series = new LinkedHashMap<>();
    series.put("withinWatermark/hdfs", new Series(Dedup.Mode.WITHIN_WATERMARK, HDFS));
    series.put("withinWatermark/rocksdb", new Series(Dedup.Mode.WITHIN_WATERMARK, ROCKSDB));
    series.put("dropDuplicates/hdfs", new Series(Dedup.Mode.UNBOUNDED, HDFS));
    for (Map.Entry<String, Series> e : series.entrySet()) {
      e.getValue().table = SeedPipeline.BUILT_IN.freshEvents(spark, "state_" + e.getKey().replace('/', '_'));
      e.getValue().checkpoint = dir.resolve("cp-state-" + UUID.randomUUID());
    }
    String previous = spark.conf().get(PROVIDER);
    try {
      List<Arrival> arrivals = new GeneratedScenario(spec, SeedPipeline.BUILT_IN.pipeline()).arrivals();
      for (Arrival a : arrivals) {
        LocalLanding.write(landing, "", List.of(a));
        for (Series s : series.values()) {
          spark.conf().set(PROVIDER, s.provider);
          RunReport r = SeedPipeline.BUILT_IN.dedup(spark, landing.resolve("events").toString(), s.table,
              s.checkpoint.toString(), s.mode);
          s.rows.add((double) r.stateRows());
          s.memoryMb.add(r.stateMemoryBytes() / 1e6);
          long[] cp = sizeAndFiles(s.checkpoint);
          s.checkpointMb.add(cp[0] / 1e6);
          s.files.add((double) cp[1]);
          s.seconds.add(r.seconds());
        }
      }
    } finally {
      spark.conf().set(PROVIDER, previous);
    }
    out.printf(Locale.ROOT, "%-24s %4s %12s %12s %14s %12s %8s%n", "series", "run", "state rows", "state MB",
        "checkpoint MB", "cp files", "run s");
    for (Map.Entry<String, Series> e : series.entrySet()) {
      Series s = e.getValue();
      for (int i = 0; i < runs; i++) {
        out.printf(Locale.ROOT, "%-24s %4d %12.0f %12.2f %14.2f %12.0f %8.2f%n", e.getKey(), i + 1, s.rows.get(i),
            s.memoryMb.get(i), s.checkpointMb.get(i), s.files.get(i), s.seconds.get(i));
      }
    }
    int from = Math.min(5, runs) - 1;
    out.println("from run " + (from + 1) + " on: run " + runs + " / run " + (from + 1) + ", and the trend (least-squares "
        + "slope per run, in % of the mean; 0 = flat). Cleanup runs on a timer, so bounded series wobble around a "
        + "level:");
    for (Map.Entry<String, Series> e : series.entrySet()) {
      Series s = e.getValue();
      out.printf(Locale.ROOT, "  %-24s state rows %.2fx %+.1f%%/run | checkpoint bytes %.2fx %+.1f%%/run | "
              + "checkpoint files %.2fx %+.1f%%/run | mean run %.2f s%n", e.getKey(),
          ratio(s.rows, from), trend(s.rows, from), ratio(s.checkpointMb, from), trend(s.checkpointMb, from),
          ratio(s.files, from), trend(s.files, from),
          s.seconds.stream().mapToDouble(Double::doubleValue).average().orElse(0));
    }
    Path png = dir.resolve("stream-state.png");
    List<Charts.Panel> panels = List.of(
        Charts.Panel.perRun("state rows", "rows", collect(series, s -> s.rows)),
        Charts.Panel.perRun("state memory", "MB", collect(series, s -> s.memoryMb)),
        Charts.Panel.perRun("checkpoint size", "MB", collect(series, s -> s.checkpointMb)),
        Charts.Panel.perRun("checkpoint files", "files", collect(series, s -> s.files)));
    Charts.write(png, "dedup state over " + runs + " availableNow runs of " + eventsPerRun + " events", panels);
    out.println("chart: " + png);
    out.flush();
  }

  private static final class Series {
    final Dedup.Mode mode;
    final String provider;
    TableName table;
    Path checkpoint;
    final List<Double> rows = new ArrayList<>();
    final List<Double> memoryMb = new ArrayList<>();
    final List<Double> checkpointMb = new ArrayList<>();
    final List<Double> files = new ArrayList<>();
    final List<Double> seconds = new ArrayList<>();

    Series(Dedup.Mode mode, String provider) {
      this.mode = mode;
      this.provider = provider;
    }
  }

  private static Map<String, List<Double>> collect(Map<String, Series> series,
                                                   java.util.function.Function<Series, List<Double>> f) {
    Map<String, List<Double>> m = new LinkedHashMap<>();
    series.forEach((k, v) -> m.put(k, f.apply(v)));
    return m;
  }

  /** Least-squares slope of v[from..] per step, in percent of its mean. */
  private static double trend(List<Double> v, int from) {
    int n = v.size() - from;
    if (n < 2) {
      return 0;
    }
    double mx = (n - 1) / 2.0;
    double my = v.subList(from, v.size()).stream().mapToDouble(Double::doubleValue).average().orElse(0);
    double num = 0;
    double den = 0;
    for (int i = 0; i < n; i++) {
      num += (i - mx) * (v.get(from + i) - my);
      den += (i - mx) * (i - mx);
    }
    return my == 0 ? 0 : 100 * num / den / my;
  }

  private static double ratio(List<Double> v, int from) {
    return v.get(from) == 0 ? Double.NaN : v.get(v.size() - 1) / v.get(from);
  }

  private RunReport runDedup(Path data, String name) {
    TableName t = SeedPipeline.BUILT_IN.freshEvents(spark, "dedup_" + name);
    return SeedPipeline.BUILT_IN.dedup(spark, data.resolve("events").toString(), t, checkpoint(),
        Dedup.Mode.WITHIN_WATERMARK);
  }

  private RunReport runCounts(Path data, String name) {
    TableName t = SeedPipeline.BUILT_IN.freshCounts(spark, "counts_" + name);
    return SeedPipeline.BUILT_IN.counts(spark, data.resolve("events").toString(), t, checkpoint());
  }

  private String checkpoint() {
    return dir.resolve("cp-" + UUID.randomUUID()).toString();
  }


  private Path data(String name, int events, int arrivals) {
    Path landing = dir.resolve(name);
    if (!Files.isDirectory(landing.resolve("events"))) {
      GeneratorSpec spec = new GeneratorSpec(42, events, 20, 0.02, 0.01, 0, 0.01, arrivals, 0, 1,
          GeneratorSpec.DEFAULT_START, Math.max(60, events / 1000));
      LocalLanding.write(landing, "", new GeneratedScenario(spec, SeedPipeline.BUILT_IN.pipeline()).arrivals());
    }
    return landing;
  }

  private static long lines(Path data) throws IOException {
    long n = 0;
    try (Stream<Path> files = Files.walk(data)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        try (Stream<String> l = Files.lines(f)) {
          n += l.count();
        }
      }
    }
    return n;
  }

  private static String where(RunReport r) {
    StringBuilder sb = new StringBuilder();
    for (String k : List.of("addBatch", "sink.compute", "sink.icebergWrite", "queryPlanning", "getBatch",
        "latestOffset", "walCommit", "commitOffsets")) {
      sb.append(k).append('=').append(r.durationsMs().getOrDefault(k, 0L)).append(' ');
    }
    return sb.toString().trim();
  }

  private static long[] sizeAndFiles(Path root) {
    long[] acc = new long[2];
    if (!Files.exists(root)) {
      return acc;
    }
    try (Stream<Path> s = Files.walk(root)) {
      s.filter(Files::isRegularFile).forEach(p -> {
        try {
          acc[0] += Files.size(p);
          acc[1]++;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return acc;
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
