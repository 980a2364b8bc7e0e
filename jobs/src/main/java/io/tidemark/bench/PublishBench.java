package io.tidemark.bench;

import io.tidemark.CrashPoints;
import io.tidemark.Timings;
import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.land.SeedScenarios;
import io.tidemark.maintain.Compaction;
import io.tidemark.publish.Publisher;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@code tidemark publish} costs next to the streams, in pipelines of their own on branches of their own (the
 * benchmark's JVM writes to its own staging branch, never the configured one). Printed, never asserted:
 * <ul>
 *   <li>per seed arrival in this (warm) JVM: {@code stream all}, then the publish of what it staged, side by side,
 *       their ratio, the checks alone, and the publish step by step;
 *   <li>the checks on the same arrivals after a short history and after one {@code factor} times longer (each
 *       history arrival streamed and published in turn), the two pipelines taking the measured arrivals in turns;
 *       each measured arrival's checks run {@code repeat} times as dry runs (the best counts), then it is published.
 * </ul>
 */
public final class PublishBench {
  /**
   * @param seedRounds times the seed arrivals go through `stream all` and publish, each time in a new pipeline
   * @param history arrivals of the short history
   * @param factor how many times longer the long history is
   * @param measured arrivals measured after each history
   * @param eventsPerArrival events of each generated arrival
   * @param changesPerArrival company changes of each generated arrival
   * @param repeat dry runs of the checks per measured arrival
   * @param compact compact both pipelines' tables after their history and publish that, as the maintenance DAG
   *     does, before the measured arrivals: the files and manifests since the last compaction, not the history,
   *     then differ between the two
   */
  public record Options(int seedRounds, int history, int factor, int measured, int eventsPerArrival,
                        int changesPerArrival, int repeat, boolean seeds, boolean histories, boolean compact) {}

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;

  public PublishBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  public void run(Options o) {
    out.println("branches: staging " + base.config().stagingBranch() + ", published " + base.config().publishedRef());
    if (o.seeds()) {
      seeds(o.seedRounds());
    }
    if (o.histories()) {
      histories(o);
    }
    out.flush();
  }

  /** A pipeline of its own (namespace, landing bucket, checkpoints) on the benchmark's branches, bootstrapped. */
  private Lakehouse scope(String what) {
    String name = "bench_publish_" + what + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
    TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name));
    Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
    Bootstrap.setUp(lh);
    return lh;
  }

  private void seeds(int rounds) {
    out.println("== seed arrivals, warm JVM: `stream all`, then `publish` of what it staged");
    out.printf(Locale.ROOT, "%-6s %-8s %9s %9s %7s %9s  %s%n", "round", "arrival", "stream s", "publish s", "ratio",
        "checks s", "publish step by step (ms)");
    for (int round = 1; round <= rounds; round++) {
      double streams = 0;
      double publishes = 0;
      double worst = 0;
      try (Lakehouse lh = scope("seed")) {
        Lander lander = new Lander(lh.storage(), lh.config().landingBucket(), "");
        for (Arrival a : SeedScenarios.ALL.arrivals()) {
          lander.land(a);
          long t0 = System.nanoTime();
          Streams.all(lh.spark(), lh.config());
          double s = seconds(t0);
          long t1 = System.nanoTime();
          Timings.Recorder steps = new Timings.Recorder();
          Publisher.Result r = new Publisher(lh, CrashPoints.NONE, steps).publish(false);
          double p = seconds(t1);
          streams += s;
          publishes += p;
          worst = Math.max(worst, p / s);
          out.printf(Locale.ROOT, "%-6d %-8d %9.2f %9.2f %6.2fx %9.2f  %s%n", round, a.number(), s, p, p / s,
              r.checkMs() / 1000.0, steps(steps.values()));
          out.flush();
        }
      }
      out.printf(Locale.ROOT, "%-6d %-8s %9.2f %9.2f %6.2fx   (worst arrival %.2fx)%n", round, "all", streams,
          publishes, publishes / streams, worst);
      out.flush();
    }
  }

  private void histories(Options o) {
    int longHistory = o.history() * o.factor();
    int total = longHistory + o.measured();
    GeneratorSpec spec = new GeneratorSpec(29, o.eventsPerArrival() * total, 50, 0.01, 0.01, 0, 0.005, total,
        o.changesPerArrival() * total, 500, GeneratorSpec.DEFAULT_START, 30);
    List<Arrival> arrivals = new GeneratedScenario(spec, base.config().pipeline()).arrivals();
    out.println("== the checks on the same " + o.measured() + " arrival(s) after " + o.history() + " and after "
        + longHistory + " arrivals of history (" + o.eventsPerArrival() + " events and " + o.changesPerArrival()
        + " company changes each; every arrival streamed, then published)");
    try (Lakehouse small = scope("h" + o.history()); Lakehouse large = scope("h" + longHistory)) {
      history(small, arrivals.subList(0, o.history()));
      history(large, arrivals.subList(0, longHistory));
      if (o.compact()) {
        compact(small, o.history());
        compact(large, longHistory);
      }
      out.printf(Locale.ROOT, "%-8s %-9s %9s %9s %9s  %s%n", "arrival", "history", "stream s", "checks s",
          "publish s", "best dry run step by step (ms)");
      double smallChecks = 0;
      double largeChecks = 0;
      for (Arrival a : arrivals.subList(longHistory, total)) {
        double s = measure(small, a, o.history(), o.repeat());
        double l = measure(large, a, longHistory, o.repeat());
        smallChecks += s;
        largeChecks += l;
        out.printf(Locale.ROOT, "%-8d the checks at %dx the history: %.2fx their time at 1x%n", a.number(),
            o.factor(), l / s);
      }
      out.printf(Locale.ROOT, "all measured arrivals: checks %.2f s after %d arrivals, %.2f s after %d: %.2fx%n",
          smallChecks, o.history(), largeChecks, longHistory, largeChecks / smallChecks);
      out.flush();
    }
  }

  /** Lands, streams and publishes each arrival of a history, printing a line per arrival. */
  private void history(Lakehouse lh, List<Arrival> arrivals) {
    Lander lander = new Lander(lh.storage(), lh.config().landingBucket(), "");
    List<String> checks = new ArrayList<>();
    long t0 = System.nanoTime();
    for (Arrival a : arrivals) {
      lander.land(a);
      Streams.all(lh.spark(), lh.config());
      checks.add(Long.toString(new Publisher(lh).publish(false).checkMs()));
    }
    out.printf(Locale.ROOT, "history of %d arrivals in %.0f s; checks (ms) of each as it was published: %s%n",
        arrivals.size(), seconds(t0), String.join(" ", checks));
    out.flush();
  }

  /** `maintain compact` on the pipeline's staging branch, then its publish, as the maintenance DAG leaves them. */
  private void compact(Lakehouse lh, int history) {
    long t0 = System.nanoTime();
    List<Compaction.Result> results = new Compaction(lh.spark(), Compaction.Options.defaults())
        .run(lh.config().pipeline().tables(), line -> { });
    new Publisher(lh).publish(false);
    out.printf(Locale.ROOT, "compacted after %d arrivals in %.0f s: %s%n", history, seconds(t0), results.stream()
        .map(r -> r.table().table() + " " + r.filesBefore() + "->" + r.filesAfter() + " files, " + r.manifestsBefore()
            + "->" + r.manifestsAfter() + " manifests").collect(Collectors.joining("; ")));
    out.flush();
  }

  /** One measured arrival: streamed, its checks run as dry runs (the best of {@code repeat}), then published. */
  private double measure(Lakehouse lh, Arrival a, int history, int repeat) {
    new Lander(lh.storage(), lh.config().landingBucket(), "").land(a);
    long t0 = System.nanoTime();
    Streams.all(lh.spark(), lh.config());
    double stream = seconds(t0);
    Publisher.Result best = null;
    Map<String, Long> bestSteps = Map.of();
    for (int i = 0; i < repeat; i++) {
      Timings.Recorder steps = new Timings.Recorder();
      Publisher.Result r = new Publisher(lh, CrashPoints.NONE, steps).publish(true);
      if (best == null || r.checkMs() < best.checkMs()) {
        best = r;
        bestSteps = steps.values();
      }
    }
    long t1 = System.nanoTime();
    new Publisher(lh).publish(false);
    double publish = seconds(t1);
    out.printf(Locale.ROOT, "%-8d %-9d %9.2f %9.2f %9.2f  %s%n", a.number(), history, stream, best.checkMs() / 1000.0,
        publish, steps(bestSteps));
    out.flush();
    return best.checkMs() / 1000.0;
  }

  private static String steps(Map<String, Long> s) {
    return s.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
