package io.tidemark.bench;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.RawArchive;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.Streams;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.spark.sql.SparkSession;

/**
 * Per-arrival latency of the streams, and where it goes. Every measurement runs in a pipeline of its own
 * (namespace, landing bucket and checkpoints {@code bench_latency_*}, see {@link TidemarkConfig#scoped}), never in
 * the configured tables. Printed, never asserted:
 * <ul>
 *   <li>the seed arrivals, each stream on its own in this (warm) JVM with the breakdown of its time, then
 *       {@code stream all} (the streams at once, in one command), and {@code stream all} again in a pipeline that
 *       does not record its batches (the stream-batches table), for what recording costs;
 *   <li>the seed's commands as the DAGs run them (land, stream all, publish, the restatement's stages), each
 *       through the resident driver and in a fresh JVM, side by side;
 *   <li>{@code tidemark stream all} per seed arrival from a cold JVM, split into the JVM's start, the
 *       SparkSession's and the streams';
 *   <li>small and larger arrivals (events and company changes) on a dimension grown in bulk to many companies;
 *   <li>dedup and windowed counts over many generated events, next to DuckDB over the same files.
 * </ul>
 */
public final class LatencyBench {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};
  private static final Pattern SUMMARY = Pattern.compile("^([a-z0-9-]+): .*\\(([\\d.]+) s\\)$");

  /**
   * @param companies size of the grown dimension
   * @param arrivalLines event lines and company changes of each arrival on the grown dimension
   * @param events events of the dedup / counts measurement next to DuckDB (0: skip it)
   * @param cold whether to run {@code stream all} in fresh JVMs
   * @param coldJvmOptions options for those JVMs (e.g. to compare -XX:TieredStopAtLevel=1)
   * @param seedArrivals how many of the seed arrivals to land
   * @param seedRounds how many times the seed arrivals go through `stream all` with and without recording
   * @param residentCommands how many of the seed's commands to run through the resident driver next to fresh JVMs
   *     (0: none)
   */
  public record Options(int companies, List<Integer> arrivalLines, int events, boolean cold,
                        List<String> coldJvmOptions, int seedArrivals, int seedRounds, int residentCommands) {}

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;
  private final Map<String, Double> summary = new LinkedHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong jobs = new java.util.concurrent.atomic.AtomicLong();
  private List<Arrival> seeds;

  public LatencyBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
    // Spark jobs per run: a count that the machine's load does not blur
    base.spark().sparkContext().addSparkListener(new org.apache.spark.scheduler.SparkListener() {
      @Override
      public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart jobStart) {
        jobs.incrementAndGet();
      }
    });
  }

  public void run(Options o) throws Exception {
    List<Arrival> all = SeedScenarios.ALL.arrivals();
    seeds = all.subList(0, Math.min(all.size(), o.seedArrivals()));
    seeds(o.seedRounds());
    if (o.residentCommands() > 0) {
      resident(o.coldJvmOptions(), o.residentCommands());
    }
    if (o.cold()) {
      cold(o.coldJvmOptions());
    }
    grownDimension(o.companies(), o.arrivalLines());
    if (o.events() > 0) {
      ratio(o.events());
    }
    out.println("== summary");
    summary.forEach((k, v) -> out.printf(Locale.ROOT, "  %-62s %8.2f%n", k, v));
    out.flush();
  }

  /** A pipeline of its own, bootstrapped: namespace, landing bucket and checkpoints. */
  private Lakehouse scope(String what) {
    String name = "bench_latency_" + what + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
    TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name));
    Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
    Bootstrap.run(lh.spark(), lh.storage(), config);
    return lh;
  }

  private void seeds(int rounds) {
    out.println("== seed arrivals, warm JVM: each stream on its own, then `stream all` (the five in one command), "
        + "then `stream all` without recording its batches in the stream-batches table");
    header();
    double worstSequential = 0;
    double worstAll = 0;
    double worstUnrecorded = 0;
    List<double[]> pairs = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      try (Lakehouse one = round == 1 ? scope("seq") : null; Lakehouse all = scope("all");
           Lakehouse off = scope("all_unrecorded")) {
        for (Arrival a : seeds) {
          Lander l2 = new Lander(all.storage(), all.config().landingBucket(), "");
          l2.land(a);
          new Lander(off.storage(), off.config().landingBucket(), "").land(a);
          if (one != null) {
            new Lander(one.storage(), one.config().landingBucket(), "").land(a);
            worstSequential = Math.max(worstSequential, eachStream(one, "seed " + a.number()));
          }
          // the two side by side, in turns first: what warms up for the one helps the other
          boolean recordFirst = (a.number() + round) % 2 == 0;
          double[] first = streamAll(recordFirst ? all : off, recordFirst, a);
          double[] second = streamAll(recordFirst ? off : all, !recordFirst, a);
          double[] with = recordFirst ? first : second;
          double[] without = recordFirst ? second : first;
          // wall times (s) with, without; after the last stream (ms) with, without
          pairs.add(new double[] {with[0], without[0], with[1], without[1]});
          worstAll = Math.max(worstAll, with[0]);
          worstUnrecorded = Math.max(worstUnrecorded, without[0]);
        }
      }
    }
    summary.put("seed arrival, five streams one after another, warm JVM (s, worst)", worstSequential);
    summary.put("seed arrival, `stream all`, warm JVM (s, worst)", worstAll);
    summary.put("seed arrival, `stream all` not recording its batches (s, worst)", worstUnrecorded);
    recordingCost(pairs);
  }

  /**
   * What recording costs, over the pairs of runs of the same arrival (recording, not recording): the ratio of their
   * sums, and the median of the pairs' ratios with its quartiles. A pair's two runs differ by up to half a second on
   * a busy machine, more than recording adds, so one ratio alone says little: the median is robust to the odd slow
   * run (a neighbour's build), and the quartiles show how far it can be trusted. The first pair is left out when
   * there are others: both its runs load and compile what every later `stream all` reuses and take up to twice as
   * long, which would weigh it double in the sums.
   */
  private void recordingCost(List<double[]> all) {
    List<double[]> pairs = all.size() > 1 ? all.subList(1, all.size()) : all;
    double with = pairs.stream().mapToDouble(p -> p[0]).sum();
    double without = pairs.stream().mapToDouble(p -> p[1]).sum();
    double[] ratios = pairs.stream().mapToDouble(p -> p[0] / p[1]).sorted().toArray();
    double[] afterWith = pairs.stream().mapToDouble(p -> p[2]).sorted().toArray();
    double[] afterWithout = pairs.stream().mapToDouble(p -> p[3]).sorted().toArray();
    out.printf(Locale.ROOT, "recording / not recording over %d pairs: %.3fx (sums), per pair: median %.3fx, "
        + "quartiles %.3f-%.3f, range %.3f-%.3f; after the last stream: median %.0f / %.0f ms%n", ratios.length,
        with / without, quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75), ratios[0],
        ratios[ratios.length - 1], quantile(afterWith, 0.5), quantile(afterWithout, 0.5));
    out.flush();
    summary.put("recording the batches: `stream all` time with / without (x, all pairs' sums)", with / without);
    summary.put("  the same, median of the pairs' ratios (x)", quantile(ratios, 0.5));
    summary.put("  `stream all` after its last stream, recording (ms, median)", quantile(afterWith, 0.5));
  }

  /** The q-quantile of sorted values, interpolated between the two nearest. */
  static double quantile(double[] sorted, double q) {
    double at = q * (sorted.length - 1);
    int lo = (int) Math.floor(at);
    int hi = Math.min(sorted.length - 1, lo + 1);
    return sorted[lo] + (at - lo) * (sorted[hi] - sorted[lo]);
  }

  /**
   * One `stream all` over the arrival just landed, recording its batches or not: its wall time (s), and the part
   * of it after the last stream's own work ended (ms; recording: the last record and the commit).
   */
  private double[] streamAll(Lakehouse lh, boolean record, Arrival a) {
    long t0 = System.nanoTime();
    List<RunReport> reports = Streams.all(lh.spark(), lh.config(), record);
    double wall = (System.nanoTime() - t0) / 1e9;
    long after = reports.isEmpty() ? 0 : reports.get(0).durationsMs().getOrDefault(Streams.AFTER_LAST_RUN, 0L);
    out.printf(Locale.ROOT, "%-9s %-16s %8s %8.2f   (the same arrival, the %d streams in one command%s; %d ms after "
        + "the last stream)%n", "seed " + a.number(), record ? "stream all" : "not recorded", "", wall,
        reports.size(), record ? "" : ", their batches not recorded", after);
    out.flush();
    return new double[] {wall, after};
  }

  /** Each stream whose dataset landed, one after another, with its breakdown; the sum of their times. */
  private double eachStream(Lakehouse lh, String label) {
    double sum = 0;
    for (StreamDef def : lh.config().pipeline().streams()) {
      String stream = def.name();
      if (lh.storage().list(lh.config().landingBucket(), def.feed().name() + "/").isEmpty()) {
        continue;
      }
      long j0 = jobs.get();
      long t0 = System.nanoTime();
      RunReport r = runStream(lh.spark(), lh.config(), stream);
      double wall = (System.nanoTime() - t0) / 1e9;
      row(label, r, wall, jobs.get() - j0);
      sum += wall;
      if (def.kind() == StreamDef.Kind.SCD2) {
        summary.merge("SCD2 run, " + label + " (s)", wall, Math::max);
      }
    }
    return sum;
  }

  private static RunReport runStream(SparkSession spark, TidemarkConfig c, String stream) {
    return StreamSpec.of(stream, c).run(spark);
  }

  private void header() {
    out.printf(Locale.ROOT, "%-9s %-16s %8s %8s %5s | %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s%n",
        "arrival", "stream", "lines", "total s", "jobs", "prefl", "start", "list", "plan", "batch", "state", "catal", "comp",
        "write", "commit", "ckpt", "nodata", "record", "rest");
  }

  /**
   * One stream's run and where its time went, in ms: preflight (source and table checks), start of the query
   * (checkpoint metadata), listing (latestOffset + getBatch: the source's files), planning, the batches' work
   * (addBatch) and in it: stateful operators, catalog lookups of the table history, computing the output rows,
   * writing data files and the Iceberg commit; checkpoint writes (offsets + commits); the trailing no-data
   * batch (a part of the others); recording the run's batches in the stream-batches table; the rest (query stop,
   * progress, gaps). Jobs: the Spark jobs the run started.
   */
  private void row(String label, RunReport r, double wall, long jobCount) {
    Map<String, Long> d = r.durationsMs();
    long record = d.getOrDefault(StreamSpec.RECORD, 0L);
    long prefl = Math.max(0, Math.round(wall * 1000 - r.seconds() * 1000) - record);
    long start = d.getOrDefault("run.start", 0L);
    long list = d.getOrDefault("latestOffset", 0L) + d.getOrDefault("getBatch", 0L);
    long plan = d.getOrDefault("queryPlanning", 0L);
    long batch = d.getOrDefault("addBatch", 0L);
    long ckpt = d.getOrDefault("walCommit", 0L) + d.getOrDefault("commitOffsets", 0L);
    long commit = d.getOrDefault("sink.icebergCommit", 0L);
    long write = Math.max(0, d.getOrDefault("sink.icebergWrite", 0L) - commit);
    long rest = Math.round(wall * 1000) - prefl - start - list - plan - batch - ckpt - record;
    out.printf(Locale.ROOT, "%-9s %-16s %8d %8.2f %5d | %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d%n",
        label, r.stream(), r.inputRows(), wall, jobCount, prefl, start, list, plan, batch, d.getOrDefault("state", 0L),
        d.getOrDefault("sink.catalog", 0L), d.getOrDefault("sink.compute", 0L), write, commit, ckpt,
        d.getOrDefault("noDataBatch", 0L), record, rest);
    out.flush();
  }

  /**
   * `stream all` in a fresh JVM per seed arrival, against the JVM's and the SparkSession's start alone; each
   * twice, side by side: as is, and with the classes mapped from a class data sharing archive (what ./tidemark
   * does after its first Spark command: its archive when there is a fresh one, else one trained here by a `sql`
   * run).
   */
  private void cold(List<String> jvmOptions) throws Exception {
    out.println("== seed arrivals, cold JVM: tidemark stream all (JVM options: " + (jvmOptions.isEmpty() ? "none"
        : String.join(" ", jvmOptions)) + "), start to exit; without and with a class archive (CDS)");
    try (Lakehouse plain = scope("cold"); Lakehouse shared = scope("cold_cds")) {
      TidemarkConfig env = plain.config();
      TidemarkConfig envShared = shared.config();
      FreshJvm without = new FreshJvm(jvmOptions, FreshJvm.ClassArchive.OFF, dir);
      FreshJvm withCds = new FreshJvm(jvmOptions, FreshJvm.ClassArchive.MAP, dir);
      // the archive the build's first Spark command wrote next to the jar (./tidemark, the tests), which the launcher
      // maps while it is newer than the jar; else one the launcher writes there at the end of a `sql` run
      Optional<Path> built = FreshJvm.classArchive();
      String origin;
      if (built.isPresent()) {
        origin = "the build's " + built.get().getFileName();
      } else {
        double trained = new FreshJvm(jvmOptions, FreshJvm.ClassArchive.TRAIN, dir).succeed(envShared, "sql",
            "SELECT 1").seconds();
        built = FreshJvm.classArchive();
        origin = String.format(Locale.ROOT, "written here in %.2f s", trained);
      }
      Path archive = built.orElseThrow(() -> new IllegalStateException("the launcher wrote no class archive next to "
          + "the jar (is its directory writable?)"));
      double jvm = without.run(env, "--version").seconds();
      double session = without.run(env, "sql", "SELECT 1").seconds();
      double sessionCds = withCds.run(envShared, "sql", "SELECT 1").seconds();
      out.printf(Locale.ROOT, "JVM start + command line (--version): %.2f s; + services check, SparkSession and "
          + "catalog (sql \"SELECT 1\"): %.2f s, with the class archive %.2f s (archive %s, %d MB)%n",
          jvm, session, sessionCds, origin, Files.size(archive) >> 20);
      out.printf(Locale.ROOT, "%-9s %-6s %8s %8s %8s   %s%n", "arrival", "CDS", "total s", "jvm s", "streams",
          "per stream (s)");
      Lander lander = new Lander(plain.storage(), plain.config().landingBucket(), "");
      Lander landerShared = new Lander(shared.storage(), shared.config().landingBucket(), "");
      double worst = 0;
      double worstCds = 0;
      for (Arrival a : seeds) {
        lander.land(a);
        landerShared.land(a);
        worst = Math.max(worst, coldRun(a, "no", env, without, session));
        worstCds = Math.max(worstCds, coldRun(a, "yes", envShared, withCds, sessionCds));
      }
      summary.put("seed arrival, `tidemark stream all`, cold JVM (s, worst)", worst);
      summary.put("  of which JVM start + SparkSession (sql \"SELECT 1\") (s)", session);
      summary.put("seed arrival, the same with the class archive (CDS) (s, worst)", worstCds);
      summary.put("  of which JVM start + SparkSession with the class archive (s)", sessionCds);
    }
  }

  /**
   * The resident column: the seed arrivals command by command as the arrivals and restatement DAGs run them, each
   * command through the resident driver and in a fresh JVM side by side (in turns, which goes first), on two
   * pipelines of their own with branches of their own. The driver of this home is used when one runs, else started
   * for the benchmark and stopped after it.
   */
  private void resident(List<String> jvmOptions, int upTo) throws Exception {
    out.println("== the resident driver: each command through the driver (the launcher hands it over) and in a "
        + "fresh JVM (TIDEMARK_DRIVER=off), side by side, start to exit; JVM options of the fresh JVMs: "
        + (jvmOptions.isEmpty() ? "none" : String.join(" ", jvmOptions)));
    FreshJvm fresh = new FreshJvm(jvmOptions, FreshJvm.ClassArchive.MAP, dir);
    FreshJvm driven = fresh.viaDriver();
    TidemarkConfig a = ownBranches(base.config(), dir, "resident_fresh");
    TidemarkConfig b = ownBranches(base.config(), dir, "resident_driver");
    boolean started = fresh.run(b, "driver", "status").exit() != 0;
    if (started) {
      fresh.succeed(b, "driver", "start");
    }
    try {
      publishedBranchOfItsOwn(fresh, base.config());
      out.printf(Locale.ROOT, "%-34s %9s %9s %8s  %s%n", "command", "fresh s", "driver s", "ratio", "same output");
      List<double[]> all = new ArrayList<>();
      Map<String, List<double[]>> byCommand = new LinkedHashMap<>();
      // a command line per pipeline: the restatement's run id names a branch, which the two must not share
      List<java.util.function.Function<TidemarkConfig, List<String>>> commands = new ArrayList<>();
      commands.add(c -> List.of("bootstrap"));
      for (Arrival s : seeds) {
        commands.add(c -> List.of("land", "--scenario", "seed", "--arrival", Integer.toString(s.number())));
        commands.add(c -> List.of("stream", "all"));
        commands.add(c -> List.of("publish"));
      }
      for (String stage : List.of("plan", "write", "audit", "merge", "tag")) {
        commands.add(c -> List.of("restate", stage, "--run-id", SeedPipeline.events(c).namespace().replace('_', '-')));
      }
      commands.add(c -> List.of("publish"));
      commands.add(c -> List.of("check"));
      commands.add(c -> List.of("sql", "SELECT count(*) FROM " + SeedPipeline.events(c)));
      int turn = 0;
      for (var command : commands.subList(0, Math.min(upTo, commands.size()))) {
        List<String> c = command.apply(b);
        FreshJvm.Run f;
        FreshJvm.Run d;
        if (turn++ % 2 == 0) {
          f = fresh.run(a, command.apply(a).toArray(String[]::new));
          d = driven.run(b, c.toArray(String[]::new));
        } else {
          d = driven.run(b, c.toArray(String[]::new));
          f = fresh.run(a, command.apply(a).toArray(String[]::new));
        }
        boolean same = f.exit() == d.exit() && masked(f.output(), a).equals(masked(d.output(), b));
        String label = String.join(" ", c.subList(0, Math.min(2, c.size()))).replace(" --scenario", "")
            + (c.get(0).equals("land") ? " " + c.get(c.size() - 1) : "");
        out.printf(Locale.ROOT, "%-34s %9.2f %9.2f %7.1fx  %s%n", label, f.seconds(), d.seconds(),
            f.seconds() / d.seconds(), same ? "yes" : "NO (exit " + f.exit() + " vs " + d.exit() + ")");
        out.flush();
        if (d.output().contains("resident driver")) {
          out.println("  (the driver did not serve it: " + d.output().lines().filter(l -> l.contains("resident driver"))
              .findFirst().orElse("") + ")");
        }
        all.add(new double[] {f.seconds(), d.seconds()});
        byCommand.computeIfAbsent(c.get(0), k -> new ArrayList<>()).add(new double[] {f.seconds(), d.seconds()});
      }
      byCommand.forEach((cmd, runs) -> {
        double fs = runs.stream().mapToDouble(r -> r[0]).sum();
        double ds = runs.stream().mapToDouble(r -> r[1]).sum();
        summary.put(String.format(Locale.ROOT, "resident driver: %s, fresh JVM / driver (s, mean of %d)", cmd,
            runs.size()), fs / runs.size());
        summary.put(String.format(Locale.ROOT, "  %s through the driver (s, mean)", cmd), ds / runs.size());
      });
      double fs = all.stream().mapToDouble(r -> r[0]).sum();
      double ds = all.stream().mapToDouble(r -> r[1]).sum();
      out.printf(Locale.ROOT, "all %d commands: %.1f s in fresh JVMs, %.1f s through the driver (%.1fx)%n",
          all.size(), fs, ds, fs / ds);
    } finally {
      if (started) {
        fresh.run(b, "driver", "stop");
      }
    }
  }

  /**
   * Makes sure the configured published branch has a commit (the configured pipeline bootstrapped: nothing changes
   * where it was), so that a published branch of a pipeline's own can be made from it: one made from Nessie's empty
   * default branch of a fresh home has no common ancestor with the staging branch that publish merges.
   */
  static void publishedBranchOfItsOwn(FreshJvm jvm, TidemarkConfig configured) throws Exception {
    jvm.succeed(configured, "bootstrap");
  }

  /** A pipeline of its own with branches of its own ({@code <name>_main}, {@code <name>_ingest}), not made yet. */
  static TidemarkConfig ownBranches(TidemarkConfig base, Path dir, String what) {
    String name = "bench_latency_" + what + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
    return base.scoped(name, dir.resolve("cp-" + name))
        .with(Map.of(Setting.NESSIE_REF, name + "_main", Setting.STAGING_BRANCH, name + "_ingest"));
  }

  /** A command's output with what differs between two pipelines and two runs masked: names, times, hashes. */
  static String masked(String output, TidemarkConfig c) {
    return output.replace(SeedPipeline.events(c).namespace().replace('_', '-'), "RUN")
        .replace(SeedPipeline.events(c).namespace(), "NS").replace(c.landingBucket(), "BUCKET")
        .replace(c.publishedRef(), "MAIN").replace(c.stagingBranch(), "INGEST")
        .replaceAll("tidemark-[a-z-]+-\\d{8}-\\d{6}\\.\\d{3}-\\d+\\.log", "LOG")
        .replaceAll("\\d+\\.\\d+ s", "T s").replaceAll("[0-9a-f]{8,64}", "HASH").replaceAll("\\d+ ms", "T ms");
  }

  private double coldRun(Arrival a, String label, TidemarkConfig env, FreshJvm jvm, double session)
      throws Exception {
    FreshJvm.Run p = jvm.run(env, "stream", "all");
    if (p.exit() != 0) {
      throw new IllegalStateException("stream all failed in a fresh JVM (exit " + p.exit() + "): " + p.output());
    }
    StringBuilder each = new StringBuilder();
    for (String line : p.output().split("\n")) {
      Matcher m = SUMMARY.matcher(line.strip());
      if (m.matches()) {
        each.append(m.group(1)).append(' ').append(m.group(2)).append("  ");
      }
    }
    out.printf(Locale.ROOT, "%-9s %-6s %8.2f %8.2f %8.2f   %s%n", "seed " + a.number(), label, p.seconds(), session,
        p.seconds() - session, each.toString().strip());
    out.flush();
    return p.seconds();
  }

  /** Arrivals of events and company changes on a dimension grown in bulk to {@code companies}. */
  private void grownDimension(int companies, List<Integer> arrivalLines) {
    out.println("== arrivals on a dimension of " + companies + " companies (grown in bulk: dimension and change log "
        + "written directly), warm JVM, each stream on its own");
    try (Lakehouse lh = scope("dim")) {
      SparkSession spark = lh.spark();
      SeedPipeline seed = SeedPipeline.of(lh.config().pipeline());
      TableName dim = seed.companies().table();
      TableName log = seed.companies().changes();
      long t0 = System.nanoTime();
      String from = "FROM range(" + companies + ")";
      spark.sql("INSERT INTO " + log.sql() + " SELECT concat('c', id), concat('name-', id), 'bronze', TIMESTAMP '"
          + "2025-12-01 00:00:00', false " + from);
      spark.sql("INSERT INTO " + dim.sql() + " SELECT concat('c', id), concat('name-', id), 'bronze', TIMESTAMP '"
          + "2025-12-01 00:00:00', CAST(NULL AS TIMESTAMP), true " + from);
      out.printf(Locale.ROOT, "grown to %d companies in %.1f s%n", companies, (System.nanoTime() - t0) / 1e9);
      header();
      Lander lander = new Lander(lh.storage(), lh.config().landingBucket(), "");
      SplittableRandom rng = new SplittableRandom(9);
      int nextEvent = 1;
      for (int k = 0; k < arrivalLines.size(); k++) {
        int n = arrivalLines.get(k);
        Instant clock = START.plus(Duration.ofHours(k));
        StringBuilder events = new StringBuilder();
        StringBuilder changes = new StringBuilder();
        for (int i = 0; i < n; i++) {
          Instant t = clock.plusMillis(3_600_000L * i / n);
          events.append("{\"event_id\":").append(nextEvent++).append(",\"company_id\":\"c")
              .append(rng.nextInt(companies)).append("\",\"amount\":1.50,\"event_ts\":\"").append(t).append("\"}\n");
          changes.append("{\"company_id\":\"c").append(rng.nextInt(companies)).append("\",\"name\":\"name-")
              .append(rng.nextInt(1000)).append("\",\"tier\":\"").append(TIERS[rng.nextInt(TIERS.length)])
              .append("\",\"change_ts\":\"").append(t).append("\"}\n");
        }
        lander.land(new Arrival(k + 1, List.of(LandingFile.of(SeedScenarios.EVENTS, "bench.jsonl",
            events.toString()), LandingFile.of(SeedScenarios.COMPANIES, "bench.jsonl", changes.toString()))));
        eachStream(lh, "#" + (k + 1) + " " + n);
      }
    }
  }

  /** Dedup and windowed counts over many events in one run, next to DuckDB over the same files. */
  private void ratio(int events) throws Exception {
    out.println("== dedup and windowed counts over " + events + " events in one availableNow run, next to DuckDB "
        + "over the same local files (measured side by side)");
    Path data = generated(events);
    BenchTables.namespace(base.spark());
    out.printf(Locale.ROOT, "%-8s %10s %9s %11s %9s %11s %7s%n", "stream", "lines", "spark s", "spark ev/s",
        "duckdb s", "duckdb ev/s", "ratio");
    String source = data.resolve("events").toString();
    for (String stream : List.of("dedup", "counts")) {
      String cp = dir.resolve("cp-ratio-" + stream + "-" + Long.toHexString(System.nanoTime())).toString();
      SeedPipeline seed = SeedPipeline.BUILT_IN;
      TableName table = stream.equals("dedup") ? seed.freshEvents(base.spark(), "latency_dedup")
          : seed.freshCounts(base.spark(), "latency_counts");
      long t0 = System.nanoTime();
      if (stream.equals("dedup")) {
        seed.dedup(base.spark(), source, table, cp, Dedup.Mode.WITHIN_WATERMARK);
      } else {
        seed.counts(base.spark(), source, table, cp);
      }
      double spark = (System.nanoTime() - t0) / 1e9;
      Path parquet = dir.resolve("duck-" + stream + ".parquet");
      double duck = stream.equals("dedup") ? DuckDbBaseline.dedup(data, parquet)
          : DuckDbBaseline.counts(data, parquet);
      out.printf(Locale.ROOT, "%-8s %10d %9.2f %11.0f %9.2f %11.0f %6.1fx%n", stream, events, spark, events / spark,
          duck, events / duck, spark / duck);
      out.flush();
      summary.put(stream + " over " + events + " events, Spark time / DuckDB time (x)", spark / duck);
    }
  }

  /**
   * {@code events} event lines (2% repeated, event time over a week) in as many files as there are cores,
   * written in parallel; kept for the next run of the same size.
   */
  private Path generated(int events) throws IOException {
    Path root = dir.resolve("latency-events-" + events);
    Path done = root.resolve("_complete");
    if (Files.exists(done)) {
      return root;
    }
    Path target = Files.createDirectories(root.resolve("events"));
    int files = Math.max(2, Runtime.getRuntime().availableProcessors() * 2);
    long span = Duration.ofDays(7).toMillis();
    long t0 = System.nanoTime();
    IntStream.range(0, files).parallel().forEach(f -> {
      int from = (int) ((long) events * f / files);
      int to = (int) ((long) events * (f + 1) / files);
      SplittableRandom rng = new SplittableRandom(f);
      try (BufferedWriter w = Files.newBufferedWriter(target.resolve(String.format("part-%03d.jsonl", f)),
          StandardCharsets.UTF_8)) {
        for (int id = from; id < to; id++) {
          String line = "{\"event_id\":" + (id + 1) + ",\"company_id\":\"c" + (rng.nextInt(20) + 1)
              + "\",\"amount\":" + rng.nextInt(1, 100_000) / 100.0 + ",\"event_ts\":\""
              + START.plusMillis(span * id / events + rng.nextInt(-60_000, 60_001)) + "\"}\n";
          w.write(line);
          if (rng.nextInt(50) == 0) {
            w.write(line);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    Files.createFile(done);
    out.printf(Locale.ROOT, "generated %d events in %d files in %.1f s%n", events, files, (System.nanoTime() - t0) / 1e9);
    return root;
  }
}
