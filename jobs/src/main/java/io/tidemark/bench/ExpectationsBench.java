package io.tidemark.bench;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.Lander;
import io.tidemark.land.SeedScenarios;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.stream.Streams;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What expectations cost {@code stream all}: the seed's pipeline with five row expectations on its events and the
 * same pipeline with none, each in a pipeline of its own (namespace, landing bucket, checkpoints), taking turns
 * arrival by arrival over the same lines. Printed, never asserted: the seconds of each {@code stream all} and the
 * ratio of their sums.
 */
public final class ExpectationsBench {
  /** The five row expectations: what a careful owner of the seed's events would write, none of them cheap to skip. */
  static final String FIVE = """
          expectations:
            - name: amount_not_negative
              condition: amount >= 0
              action: drop
            - name: event_time_not_future
              condition: event_ts <= current_timestamp() + INTERVAL 1 DAY
              action: drop
            - name: company_given
              condition: company_id IS NOT NULL
              action: warn
            - name: amount_bounded
              condition: amount < 1000000
              action: warn
            - name: company_named
              condition: company_id RLIKE '^c[0-9]+$'
              action: warn
      """;

  /**
   * @param events events per arrival
   * @param arrivals arrivals of each variant
   * @param rounds pipelines of each variant, one after the other
   */
  public record Options(int events, int arrivals, int rounds) {}

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;

  public ExpectationsBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  public void run(Options o) throws IOException {
    out.println("branches: staging " + base.config().stagingBranch() + ", published " + base.config().publishedRef());
    Map<String, Path> files = new LinkedHashMap<>();
    files.put("none", write("none", ""));
    files.put("five", write("five", FIVE));
    out.printf(Locale.ROOT, "== stream all of the seed's events, %d arrivals of %d events, with five row expectations "
        + "and with none, taking turns arrival by arrival, %d round(s)%n", o.arrivals(), o.events(), o.rounds());
    // the JIT's and the catalog's warm-up, in a pipeline of each variant, not counted
    for (Path file : files.values()) {
      try (Lakehouse lh = scope(file)) {
        arrive(lh, 1, 0, Math.min(o.events(), 5000));
      }
    }
    Map<String, List<Double>> seconds = new LinkedHashMap<>();
    files.keySet().forEach(v -> seconds.put(v, new ArrayList<>()));
    out.printf(Locale.ROOT, "%-6s %-8s %-8s %10s %12s%n", "round", "arrival", "variant", "events", "stream all s");
    for (int r = 1; r <= o.rounds(); r++) {
      List<String> order = new ArrayList<>(files.keySet());
      if (r % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      Map<String, Lakehouse> open = new LinkedHashMap<>();
      try {
        for (String v : order) {
          open.put(v, scope(files.get(v)));
        }
        for (int k = 1; k <= o.arrivals(); k++) {
          // the variants take turns, the first of a pair changing every arrival: neither always runs on a cooler cache
          List<String> turn = new ArrayList<>(order);
          if (k % 2 == 0) {
            java.util.Collections.reverse(turn);
          }
          for (String v : turn) {
            double s = arrive(open.get(v), k, (k - 1) * o.events(), o.events());
            seconds.get(v).add(s);
            out.printf(Locale.ROOT, "%-6d %-8d %-8s %10d %12.2f%n", r, k, v, o.events(), s);
            out.flush();
          }
        }
        // what shows the rules ran: every event of the round judged by each of them
        Lakehouse five = open.get("five");
        Object judged = five.spark().sql("SELECT sum(rows) FROM " + five.config().pipeline().shared().expectations()
            .sql() + " WHERE expectation = 'amount_not_negative'").first().get(0);
        out.printf(Locale.ROOT, "round %d: the record of five holds %s row(s) judged by amount_not_negative%n", r,
            judged);
      } finally {
        for (Lakehouse lh : open.values()) {
          lh.close();
        }
      }
    }
    double none = seconds.get("none").stream().mapToDouble(Double::doubleValue).sum();
    double five = seconds.get("five").stream().mapToDouble(Double::doubleValue).sum();
    out.printf(Locale.ROOT, "%-8s %14s %18s%n", "variant", "stream all s", "s per arrival (mean)");
    out.printf(Locale.ROOT, "%-8s %14.2f %18.2f%n", "none", none, none / seconds.get("none").size());
    out.printf(Locale.ROOT, "%-8s %14.2f %18.2f%n", "five", five, five / seconds.get("five").size());
    out.printf(Locale.ROOT, "five row expectations cost stream all %+.1f%% of its time without any (ratio %.3f)%n",
        100 * (five / none - 1), five / none);
    out.flush();
  }

  /** Lands arrival {@code k} ({@code n} events from {@code from}) and runs {@code stream all}: its seconds. */
  private static double arrive(Lakehouse lh, int k, int from, int n) {
    new Lander(lh.storage(), lh.config().landingBucket(), "").land(new Arrival(k, List.of(
        LandingFile.of(SeedScenarios.EVENTS, "events.jsonl", DriftBench.events(from, n, 0)))));
    long t0 = System.nanoTime();
    Streams.all(lh.spark(), lh.config());
    return (System.nanoTime() - t0) / 1e9;
  }

  /** The seed's file with its events' expectations replaced by {@code expectations} (none when blank). */
  private Path write(String name, String expectations) throws IOException {
    String seed;
    try (InputStream in = PipelineFile.class.getResourceAsStream(PipelineFile.SEED_RESOURCE)) {
      seed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    int from = seed.indexOf("    expectations:");
    int to = seed.indexOf("    aggregates:", from);
    if (from < 0 || to < 0) {
      throw new IllegalStateException("the seed's file has no events expectations before its aggregates");
    }
    Path file = dir.resolve("expectations-" + name + ".yml");
    Files.writeString(file, seed.substring(0, from) + expectations + seed.substring(to));
    return file;
  }

  /** A pipeline of its own from {@code file}, on the benchmark's branches, bootstrapped. */
  private Lakehouse scope(Path file) {
    String name = "bench_expect_" + Long.toHexString(System.nanoTime() & 0xffffff);
    TidemarkConfig config = base.config().with(Map.of(Setting.PIPELINE, file.toString()))
        .scoped(name, dir.resolve("cp-" + name));
    Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
    Bootstrap.setUp(lh);
    return lh;
  }
}
