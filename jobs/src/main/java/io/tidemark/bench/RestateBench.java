package io.tidemark.bench;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.spark.Work;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.land.Arrival;
import io.tidemark.land.GeneratedScenario;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.restate.Restatement;
import io.tidemark.restate.Stage;
import io.tidemark.restate.StageResult;
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
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * What a restatement costs, in pipelines of its own: the seed's restatement stage by stage (time, Spark jobs, table
 * loads), in this JVM and as commands in fresh JVMs next to the cost of any command ({@code sql "SELECT 1"}), and
 * a run with nothing late; then the cost against history size: for each history (same events per day, more days),
 * the streams run over it, a first restatement sets the marks, then one arrival brings the same number of late
 * events (for the last finalized days) and the second restatement is timed, with the data files and rows its
 * commits wrote and removed. The cost should follow the late data, not the size of the tables.
 */
public final class RestateBench {
  private static final List<String> STAGE_ORDER = List.of("plan", "write", "audit", "merge", "tag");

  private final Lakehouse base;
  private final PrintWriter out;
  private final Path dir;

  public RestateBench(Lakehouse base, PrintWriter out, Path dir) {
    this.base = base;
    this.out = out;
    this.dir = dir;
  }

  /** A pipeline of its own (namespace, landing bucket, checkpoints, ref prefix), bootstrapped. */
  private Lakehouse scope(String what) {
    String name = "bench_restate_" + what + "_" + Long.toHexString(System.nanoTime() & 0xffffff);
    TidemarkConfig config = base.config().scoped(name, dir.resolve("cp-" + name));
    Lakehouse lh = Lakehouse.attach(config, base.endpoints(), base.spark());
    Bootstrap.run(lh.spark(), lh.storage(), config);
    return lh;
  }

  private static String prefix(Lakehouse lh) {
    return lh.config().pipeline().rawTables().get(0).namespace().replace('_', '-') + "-";
  }

  private static Restatement.Options options(Lakehouse lh) {
    return Restatement.Options.defaults(lh.config()).withPrefix(prefix(lh));
  }

  /** The seed's arrivals landed and run through the streams: a pipeline with late data to restate. */
  private Lakehouse seed(String what) {
    Lakehouse lh = scope(what);
    Lander lander = new Lander(lh.storage(), lh.config().landingBucket(), "");
    for (Arrival a : SeedScenarios.ALL.arrivals()) {
      lander.land(a);
      Streams.all(lh.spark(), lh.config());
    }
    return lh;
  }

  /**
   * The seed's restatement stage by stage in this (warm) JVM, twice on pipelines of their own; a run with nothing
   * new, and one after an on-time arrival; then, when {@code fresh}, each stage and a run with
   * nothing new as a command in a fresh JVM, next to {@code sql "SELECT 1"} in one.
   */
  public void seed(boolean fresh, List<String> jvmOptions) throws Exception {
    out.println("== the seed's restatement, stage by stage: time, Spark jobs and table loads");
    out.printf(Locale.ROOT, "%-24s %-8s %8s %6s %6s%n", "where", "stage", "s", "jobs", "loads");
    Lakehouse first = null;
    for (String where : List.of("warm JVM, first", "warm JVM, again")) {
      Lakehouse lh = seed("seed");
      first = first == null ? lh : first;
      Restatement.Options o = options(lh).withRunId("bench");
      double total = 0;
      for (String label : STAGE_ORDER) {
        Stage stage = Stage.named(label);
        Work.Counts w0 = Work.now();
        long t0 = System.nanoTime();
        StageResult r = new Restatement(lh, o).stage(stage);
        double s = (System.nanoTime() - t0) / 1e9;
        Work.Counts w = Work.now().since(w0);
        if (r.failed()) {
          throw new IllegalStateException("restate " + label + " failed on the seed: " + r.failure());
        }
        total += s;
        out.printf(Locale.ROOT, "%-24s %-8s %8.2f %6d %6d%n", where, label, s, w.sparkJobs(), w.tableLoads());
      }
      out.printf(Locale.ROOT, "%-24s %-8s %8.2f%n", where, "all", total);
      out.flush();
    }

    out.println("== nothing late to restate, warm JVM");
    Work.Counts w0 = Work.now();
    long t0 = System.nanoTime();
    Restatement.Result nothing = new Restatement(first, options(first)).run();
    double idle = (System.nanoTime() - t0) / 1e9;
    out.printf(Locale.ROOT, "nothing new since the last restatement: %.2f s, %s%s%n", idle, Work.now().since(w0),
        nothing.nothingToDo() ? "" : " (it restated something: not what this measures)");
    new Lander(first.storage(), first.config().landingBucket(), "").land(onTime(SeedScenarios.ALL.arrivals().size()
        + 1));
    Streams.all(first.spark(), first.config());
    w0 = Work.now();
    t0 = System.nanoTime();
    nothing = new Restatement(first, options(first)).run();
    out.printf(Locale.ROOT, "an on-time arrival since the last restatement: %.2f s, %s%s%n",
        (System.nanoTime() - t0) / 1e9, Work.now().since(w0),
        nothing.nothingToDo() ? "" : " (it restated something: not what this measures)");
    out.flush();
    if (fresh) {
      fresh(first, jvmOptions);
    }
  }

  /** Each stage, and a run with nothing new, as a command in a fresh JVM, next to {@code sql "SELECT 1"}. */
  private void fresh(Lakehouse idle, List<String> jvmOptions) throws Exception {
    out.println("== the same as commands in fresh JVMs (tidemark, JVM options: " + (jvmOptions == null
        ? "the launcher's" : String.join(" ", jvmOptions)) + "; no class archive), each next to `sql \"SELECT 1\"` in "
        + "a fresh JVM just before it");
    out.printf(Locale.ROOT, "%-36s %8s %10s %7s%n", "command", "s", "SELECT 1 s", "ratio");
    FreshJvm jvm = new FreshJvm(jvmOptions, FreshJvm.ClassArchive.OFF, dir);
    Lakehouse lh = seed("fresh");
    String prefix = prefix(lh);
    for (String label : STAGE_ORDER) {
      row(jvm, lh.config(), "restate " + label, "restate", label, "--run-id", "bench", "--ref-prefix", prefix);
    }
    row(jvm, idle.config(), "restate (nothing new)", "restate", "--ref-prefix", prefix(idle));
  }

  private void row(FreshJvm jvm, TidemarkConfig config, String label, String... args) throws Exception {
    double select = jvm.succeed(config, "sql", "SELECT 1").seconds();
    double s = jvm.succeed(config, args).seconds();
    out.printf(Locale.ROOT, "%-36s %8.2f %10.2f %6.2fx%n", label, s, select, s / select);
    out.flush();
  }

  /** {@code arrivals}: how many arrivals the history lands in, each run through the streams. */
  public void run(List<Integer> histories, int late, int eventsPerDay, int arrivals) throws Exception {
    out.println("== restatement cost vs history: " + eventsPerDay + " events a day, " + late
        + " late events in the measured run; history in " + arrivals + " arrivals");
    out.printf(Locale.ROOT, "%9s %6s %10s %10s %9s %9s %9s %9s %9s %6s %6s%n", "history", "days", "first s",
        "measured s", "windows", "events", "files+", "files-", "rows+-", "jobs", "loads");
    Double smallest = null;
    for (int history : histories) {
      int days = Math.max(1, history / eventsPerDay);
      Lakehouse lh = scope(Integer.toString(history));
      TidemarkConfig config = lh.config();
      Lander lander = new Lander(lh.storage(), config.landingBucket(), "");
      GeneratorSpec spec = new GeneratorSpec(3, history, 20, 0.01, 0, 0, 0, arrivals, 0, 1,
          GeneratorSpec.DEFAULT_START, days * 24 * 60 / arrivals);
      for (Arrival a : new GeneratedScenario(spec, config.pipeline()).arrivals()) {
        lander.land(a);
        Streams.all(lh.spark(), config);
      }
      long t0 = System.nanoTime();
      new Restatement(lh, options(lh)).run();
      double first = (System.nanoTime() - t0) / 1e9;

      Instant end = GeneratorSpec.DEFAULT_START.plus(Duration.ofDays(days));
      lander.land(lateArrival(arrivals + 1, late, history, end));
      Streams.all(lh.spark(), config);
      long[] before = totals(lh, config);
      Work.Counts w0 = Work.now();
      long t1 = System.nanoTime();
      Restatement.Result r = new Restatement(lh, options(lh)).run();
      double measured = (System.nanoTime() - t1) / 1e9;
      Work.Counts w = Work.now().since(w0);
      long[] after = totals(lh, config);
      out.printf(Locale.ROOT, "%9d %6d %10.2f %10.2f %9d %9d %9d %9d %9d %6d %6d%n", history, days, first, measured,
          r.windows().size(), r.records(), after[0] - before[0], after[1] - before[1], after[2] - before[2],
          w.sparkJobs(), w.tableLoads());
      if (smallest == null) {
        smallest = measured;
      } else {
        out.printf(Locale.ROOT, "  %.1fx the history: %.2fx the time of the smallest%n",
            (double) history / histories.get(0), measured / smallest);
      }
      out.flush();
    }
    out.println("first = the first restatement, over the whole history; measured = the next one, after one arrival "
        + "with the late events; jobs/loads = Spark jobs and table loads of the measured one; files+/files-/rows+- = "
        + "data and delete files added/removed and rows written+removed by its commits on the counts and events "
        + "tables");
  }

  /** An arrival of one on-time event per company a minute after the seed's newest: nothing late in it. */
  private static Arrival onTime(int number) {
    StringBuilder sb = new StringBuilder();
    Instant t = Instant.parse("2026-01-01T02:00:00Z");
    for (int c = 1; c <= 3; c++) {
      sb.append("{\"event_id\":").append(900_000 + c).append(",\"company_id\":\"c").append(c)
          .append("\",\"amount\":1.00,\"event_ts\":\"").append(t.plusSeconds(c)).append("\"}\n");
    }
    return new Arrival(number, List.of(LandingFile.of(SeedScenarios.EVENTS, "on-time.jsonl", sb.toString())));
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
    return new Arrival(number, List.of(LandingFile.of(SeedScenarios.EVENTS, "late.jsonl", sb.toString())));
  }

  /** Data files added, removed, and rows added + removed so far by the restatement on counts and events. */
  private static long[] totals(Lakehouse lh, TidemarkConfig config) {
    long[] acc = new long[3];
    SeedPipeline seed = SeedPipeline.of(config.pipeline());
    for (var t : List.of(seed.counts().table(), seed.events().dedupTable())) {
      Table table = IcebergTables.load(lh.spark(), t);
      for (Snapshot s : table.snapshots()) {
        if (Provenance.madeBy(s, io.tidemark.core.CommitKeys.RESTATEMENT_STREAM)) {
          acc[0] += Long.parseLong(s.summary().getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0"))
              + Long.parseLong(s.summary().getOrDefault("added-delete-files", "0"));
          acc[1] += Long.parseLong(s.summary().getOrDefault(SnapshotSummary.DELETED_FILES_PROP, "0"))
              + Long.parseLong(s.summary().getOrDefault(SnapshotSummary.REMOVED_DELETE_FILES_PROP, "0"));
          acc[2] += Long.parseLong(s.summary().getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"))
              + Long.parseLong(s.summary().getOrDefault(SnapshotSummary.DELETED_RECORDS_PROP, "0"));
        }
      }
    }
    return acc;
  }
}
