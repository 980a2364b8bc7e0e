package io.tidemark.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.tidemark.CrashPoints;
import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.core.Ingest;
import io.tidemark.core.Quarantine;
import io.tidemark.core.Rescued;
import io.tidemark.evolve.Promotion;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.Lander;
import io.tidemark.stream.LineFormat;
import io.tidemark.stream.Streams;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * What schema drift costs. Printed, never asserted:
 * <ul>
 *   <li>keeping the rescued data, for lines that carry no unknown key: the raw stream's conversion of the same lines
 *       (held in memory, so reading them costs nothing) with the rescued data and without it (the column dropped,
 *       which Spark's optimizer then never computes), the two taking turns; the conversion is only part of what
 *       {@code stream all} does, so its ratio bounds the cost to the stream from above;
 *   <li>{@code evolve promote} of a key after a history and after one {@code factor} times longer, each in a pipeline
 *       of its own: seconds and rows backfilled, and seconds per thousand rows that carried the key.
 * </ul>
 */
public final class DriftBench {
  /** The key the history's events carry beyond the declared columns. */
  static final String KEY = "region";

  /**
   * @param lines lines converted per round of the rescue's cost
   * @param rounds rounds of each variant
   * @param history events of the short history
   * @param factor how many times longer the long history is
   * @param carrying the share of the history's events that carry the key
   */
  public record Options(int lines, int rounds, int history, int factor, double carrying) {}

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;

  public DriftBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  public void run(Options o) throws IOException {
    out.println("branches: staging " + base.config().stagingBranch() + ", published " + base.config().publishedRef());
    double perLine = rescueCost(o.lines(), o.rounds());
    promotion(o.history(), o.factor(), o.carrying(), perLine);
    out.flush();
  }

  /** Seconds the rescued data adds to the conversion of a line (the medians' difference). */
  private double rescueCost(int lines, int rounds) throws IOException {
    SparkSession spark = base.spark();
    Path file = dir.resolve("drift-lines.jsonl");
    Files.writeString(file, events(0, lines, 0));
    Dataset<Row> text = spark.read().text(file.toString())
        .withColumnRenamed("value", Quarantine.LINE.name())
        .withColumn(Ingest.SOURCE_FILE.name(), lit(file.toString()))
        .withColumn(Ingest.ARRIVAL.name(), lit(1).cast(Ingest.ARRIVAL.type().sql()))
        .persist(StorageLevel.MEMORY_ONLY());
    try {
      text.count();
      Dataset<Row> with = LineFormat.of(SeedPipeline.BUILT_IN.events().schema()).parse(text);
      Dataset<Row> without = with.drop(Rescued.DATA.name());
      long rescued = with.where(col(Rescued.DATA.name()).isNotNull()).count();
      out.printf(Locale.ROOT, "== keeping the rescued data: the raw stream's conversion of %d lines with no unknown "
          + "key (%d of them rescued anything), %d rounds each, taking turns%n", lines, rescued, rounds);
      // the first of each is the JIT's warm-up
      convert(with);
      convert(without);
      List<Double> withS = new ArrayList<>();
      List<Double> withoutS = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
          withS.add(convert(with));
          withoutS.add(convert(without));
        } else {
          withoutS.add(convert(without));
          withS.add(convert(with));
        }
      }
      double a = median(withoutS);
      double b = median(withS);
      out.printf(Locale.ROOT, "%-34s %10s %14s%n", "variant", "median s", "lines/s");
      out.printf(Locale.ROOT, "%-34s %10.3f %14.0f%n", "without the rescued data", a, lines / a);
      out.printf(Locale.ROOT, "%-34s %10.3f %14.0f%n", "with the rescued data", b, lines / b);
      out.printf(Locale.ROOT, "the rescued data costs the conversion %.2fx its time without (median of the "
          + "rounds' ratios %.2fx)%n", b / a, medianRatio(withS, withoutS));
      return (b - a) / lines;
    } finally {
      text.unpersist();
    }
  }

  /** Seconds to convert every line and compute every column (Spark's noop sink writes nothing but reads all). */
  private static double convert(Dataset<Row> parsed) {
    long t0 = System.nanoTime();
    parsed.write().format("noop").mode("overwrite").save();
    return (System.nanoTime() - t0) / 1e9;
  }

  private void promotion(int history, int factor, double carrying, double rescuePerLine) {
    out.printf(Locale.ROOT, "== evolve promote %s.%s after %d and after %d events of history (%.0f%% of them carry "
        + "the key; one arrival, streamed, then promoted)%n", SeedScenarios.EVENTS, KEY, history, history * factor,
        carrying * 100);
    out.printf(Locale.ROOT, "%-8s %10s %15s %12s %14s %10s %14s%n", "history", "events", "stream all s",
        "carried key", "rows backfilled", "promote s", "s per 1k rows");
    // the long history first: the first promotion in the JVM pays its warm-up, which then inflates the ratio at
    // 10x, never hides a cost that grows with the rows
    double first = 0;
    double longOne = 0;
    for (int size : new int[] {history * factor, history}) {
      try (Lakehouse lh = scope(size)) {
        new Lander(lh.storage(), lh.config().landingBucket(), "").land(new Arrival(1, List.of(
            LandingFile.of(SeedScenarios.EVENTS, "events.jsonl", events(0, size, carrying)))));
        long s0 = System.nanoTime();
        Streams.all(lh.spark(), lh.config());
        double streamed = (System.nanoTime() - s0) / 1e9;
        long carried = lh.spark().table(SeedPipeline.of(lh.config().pipeline()).events().raw().table().sql())
            .where(col(Rescued.DATA.name()).contains("\"" + KEY + "\"")).count();
        long t0 = System.nanoTime();
        Promotion.Result r = new Promotion(lh, CrashPoints.NONE).promote(
            SeedPipeline.of(lh.config().pipeline()).events(), KEY, null);
        double s = (System.nanoTime() - t0) / 1e9;
        if (size == history) {
          first = s;
        } else {
          longOne = s;
        }
        out.printf(Locale.ROOT, "%-8s %10d %15.2f %12d %14d %10.2f %14.3f%n", size == history ? "1x" : factor + "x",
            size, streamed, carried, r.rawRows(), s, carried == 0 ? 0 : s / (carried / 1000.0));
        out.printf(Locale.ROOT, "  %s%n", r.summary());
        out.flush();
        if (size != history) {
          // what the rescued data would add to this stream all if none of its lines carried a key: the extra cost per
          // line of the conversion measured above
          out.printf(Locale.ROOT, "the rescued data's conversion cost at the rate measured above, over the %d lines "
              + "of this stream all: %.2f s, %.1f%% of its %.2f s%n", size, rescuePerLine * size,
              100 * rescuePerLine * size / streamed, streamed);
        }
      }
    }
    out.printf(Locale.ROOT, "the promotion at %dx the history took %.2fx its time at 1x%n", factor, longOne / first);
  }

  /** A pipeline of its own (namespace, landing bucket, checkpoints) on the benchmark's branches, bootstrapped. */
  private Lakehouse scope(int size) {
    String name = "bench_drift_" + size + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
    TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name));
    Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
    Bootstrap.setUp(lh);
    return lh;
  }

  /**
   * Events {@code from}..{@code from + n - 1} as JSON lines, a {@code carrying} share of them with the key: ten
   * companies, an event a second from 2026-01-01.
   */
  static String events(int from, int n, double carrying) {
    StringBuilder b = new StringBuilder(n * 110);
    String[] regions = {"eu", "us", "apac"};
    // every k-th event carries the key: the same share at every size
    int every = carrying <= 0 ? 0 : (int) Math.max(1, Math.round(1 / carrying));
    for (int i = from; i < from + n; i++) {
      b.append("{\"event_id\":").append(i).append(",\"company_id\":\"c").append(i % 10)
          .append("\",\"amount\":").append(i % 1000 / 10.0)
          .append(",\"event_ts\":\"").append(java.time.Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i))
          .append('"');
      if (every > 0 && i % every == 0) {
        b.append(",\"").append(KEY).append("\":\"").append(regions[i % regions.length]).append('"');
      }
      b.append("}\n");
    }
    return b.toString();
  }

  private static double median(List<Double> xs) {
    double[] s = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static double medianRatio(List<Double> num, List<Double> den) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < num.size(); i++) {
      r.add(num.get(i) / den.get(i));
    }
    return median(r);
  }
}
