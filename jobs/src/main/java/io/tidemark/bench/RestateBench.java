package io.tidemark.bench;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Bootstrap;
import io.tidemark.lakehouse.IcebergTables;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.Dataset;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.restate.Restatement;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Restatement cost against history size: for each history (same events per day, more days), the streams run
 * over it, a first restatement sets the marks, then one arrival brings the same number of late events (for
 * the last finalized days) and the second restatement is timed, with the data files and rows its commits wrote
 * and removed. The cost should follow the late data, not the size of the tables.
 */
public final class RestateBench {
  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;

  public RestateBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  /** {@code arrivals}: how many arrivals the history lands in, each run through the streams. */
  public void run(List<Integer> histories, int late, int eventsPerDay, int arrivals) throws Exception {
    out.println("== restatement cost vs history: " + eventsPerDay + " events a day, " + late
        + " late events in the measured run; history in " + arrivals + " arrivals");
    out.printf(Locale.ROOT, "%9s %6s %10s %10s %9s %9s %9s %9s %9s%n", "history", "days", "first s", "measured s",
        "windows", "events", "files+", "files-", "rows+-");
    Double smallest = null;
    for (int history : histories) {
      int days = Math.max(1, history / eventsPerDay);
      String name = "bench_restate_" + history + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
      TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name));
      Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
      Bootstrap.run(lh.spark(), lh.storage(), config);
      Lander lander = new Lander(lh.storage(), config.landingBucket(), "");
      GeneratorSpec spec = new GeneratorSpec(3, history, 20, 0.01, 0, 0, 0, arrivals, 0, 1,
          GeneratorSpec.DEFAULT_START, days * 24 * 60 / arrivals);
      for (Arrival a : new GeneratedScenario(spec).arrivals()) {
        lander.land(a);
        Streams.all(lh.spark(), config);
      }
      long t0 = System.nanoTime();
      new Restatement(lh, Restatement.Options.defaults(config).withPrefix(name + "-")).run();
      double first = (System.nanoTime() - t0) / 1e9;

      Instant end = GeneratorSpec.DEFAULT_START.plus(Duration.ofDays(days));
      lander.land(lateArrival(arrivals + 1, late, history, end));
      Streams.all(lh.spark(), config);
      long[] before = totals(lh, config);
      long t1 = System.nanoTime();
      Restatement.Result r = new Restatement(lh, Restatement.Options.defaults(config).withPrefix(name + "-")).run();
      double measured = (System.nanoTime() - t1) / 1e9;
      long[] after = totals(lh, config);
      out.printf(Locale.ROOT, "%9d %6d %10.2f %10.2f %9d %9d %9d %9d %9d%n", history, days, first, measured,
          r.windows().size(), r.events(), after[0] - before[0], after[1] - before[1], after[2] - before[2]);
      if (smallest == null) {
        smallest = measured;
      } else {
        out.printf(Locale.ROOT, "  %.1fx the history: %.2fx the time of the smallest%n",
            (double) history / histories.get(0), measured / smallest);
      }
      out.flush();
    }
    out.println("first = the first restatement, over the whole history; measured = the next one, after one arrival "
        + "with the late events; files+/files-/rows+- = data files added/removed and rows written+removed by its "
        + "commits on the counts and events tables");
  }

  /** Late events (new ids) for windows of the last finalized day, plus one on-time event a little later. */
  private static Arrival lateArrival(int number, int late, int idOffset, Instant end) {
    SplittableRandom rng = new SplittableRandom(5);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < late; i++) {
      Instant t = end.minus(Duration.ofHours(30)).plusSeconds(rng.nextInt(6 * 3600));
      sb.append("{\"event_id\":").append(idOffset + 1_000_000 + i).append(",\"company_id\":\"c")
          .append(rng.nextInt(20) + 1).append("\",\"amount\":1.00,\"event_ts\":\"").append(t).append("\"}\n");
    }
    sb.append("{\"event_id\":").append(idOffset + 2_000_000).append(",\"company_id\":\"c1\",\"amount\":1.00,")
        .append("\"event_ts\":\"").append(end.plus(Duration.ofMinutes(5))).append("\"}\n");
    return new Arrival(number, List.of(LandingFile.of(Dataset.EVENTS, "late.jsonl", sb.toString())));
  }

  /** Data files added, removed, and rows added + removed so far by the restatement on counts and events. */
  private static long[] totals(Lakehouse lh, TidemarkConfig config) {
    long[] acc = new long[3];
    for (var t : List.of(config.tables().eventCounts(), config.tables().events())) {
      Table table = IcebergTables.load(lh.spark(), t);
      for (Snapshot s : table.snapshots()) {
        if (Provenance.madeBy(s, io.tidemark.lakehouse.CommitKeys.RESTATEMENT_STREAM)) {
          acc[0] += Long.parseLong(s.summary().getOrDefault("added-data-files", "0"));
          acc[1] += Long.parseLong(s.summary().getOrDefault("deleted-data-files", "0"));
          acc[2] += Long.parseLong(s.summary().getOrDefault("added-records", "0"))
              + Long.parseLong(s.summary().getOrDefault("deleted-records", "0"));
        }
      }
    }
    return acc;
  }
}
