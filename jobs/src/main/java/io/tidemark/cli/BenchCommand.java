package io.tidemark.cli;

import io.tidemark.bench.DriftBench;
import io.tidemark.bench.DriverSoak;
import io.tidemark.bench.ExpectationsBench;
import io.tidemark.bench.LatencyBench;
import io.tidemark.bench.MaintenanceBench;
import io.tidemark.bench.PublishBench;
import io.tidemark.bench.RestateBench;
import io.tidemark.bench.Scd2Bench;
import io.tidemark.bench.SoakBench;
import io.tidemark.bench.StreamBench;
import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks that print numbers (measured side by side in one run; nothing is asserted).",
    subcommands = {BenchCommand.Streams.class, BenchCommand.Scd2.class, BenchCommand.Restate.class,
        BenchCommand.Latency.class, BenchCommand.Maintenance.class, BenchCommand.Publish.class,
        BenchCommand.Soak.class, BenchCommand.DriverSoakBench.class, BenchCommand.Drift.class,
        BenchCommand.Expectations.class})
final class BenchCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** A benchmark: checks its options, then runs in the lakehouse, printing as it goes. */
  abstract static class Bench implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Throws {@link #invalid} for an option out of range; before any service is started. */
    void validate() {}

    abstract void run(Lakehouse lh, PrintWriter out) throws Exception;

    /** The configuration the benchmark's JVM writes with: by default the configured writer's. */
    TidemarkConfig configure(TidemarkConfig writing) {
      return writing;
    }

    /**
     * What the benchmark needs before it runs: its tables are its own, but its catalog works on the configured
     * staging branch, which a fresh home has not made yet.
     */
    void prepare(Lakehouse lh) {
      Bootstrap.stagingBranch(lh);
    }

    ParameterException invalid(String message) {
      return new ParameterException(spec.commandLine(), message);
    }

    @Override
    public Integer call() throws Exception {
      validate();
      try (Lakehouse lh = Lakehouse.open(configure(Tidemark.root(spec).config().writing()),
          "tidemark bench " + spec.name())) {
        prepare(lh);
        run(lh, spec.commandLine().getOut());
      }
      return 0;
    }
  }

  /** Where a benchmark writes its data, checkpoints and charts. */
  static final class OutDir {
    @Option(names = "--out", paramLabel = "<dir>",
        description = "Where the data, checkpoints and charts go (default: <home>/bench).")
    Path dir;

    Path create(TidemarkConfig config) throws IOException {
      return Files.createDirectories(dir != null ? dir : config.home().resolve("bench"));
    }
  }

  @Command(name = "scd2", mixinStandardHelpOptions = true, sortOptions = false,
      description = "MERGE time and rows/files rewritten per arrival as the SCD2 dimension grows, copy-on-write "
          + "next to merge-on-read.")
  static final class Scd2 extends Bench {
    @Option(names = "--sizes", split = ",", defaultValue = "1000,2000,5000,10000,20000,50000,100000",
        description = "Companies after each arrival (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--changes", defaultValue = "1000",
        description = "Changes to existing companies per arrival (default: ${DEFAULT-VALUE}).")
    int changes;

    @Mixin
    OutDir out;

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      Bootstrap.run(lh.spark(), lh.storage(), lh.config());
      new Scd2Bench(lh.spark(), print, out.create(lh.config())).run(sizes, changes);
    }
  }

  @Command(name = "restate", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"What a restatement costs: the seed's restatement stage by stage (time, Spark jobs, table "
          + "loads) in this JVM and as commands in fresh JVMs next to `sql \"SELECT 1\"`, a run with nothing late; "
          + "then the time and data files rewritten as the history grows, with the same late events."})
  static final class Restate extends Bench {
    @Option(names = "--histories", split = ",", defaultValue = "50000,500000",
        description = "Events of history (default: ${DEFAULT-VALUE}).")
    List<Integer> histories;

    @Option(names = "--late", defaultValue = "200", description = "Late events (default: ${DEFAULT-VALUE}).")
    int late;

    @Option(names = "--events-per-day", paramLabel = "<n>", defaultValue = "10000",
        description = "Events per day of event time in the history (default: ${DEFAULT-VALUE}).")
    int eventsPerDay;

    @Option(names = "--arrivals", defaultValue = "5",
        description = "Arrivals the history lands in, each run through the streams (default: ${DEFAULT-VALUE}).")
    int arrivals;

    @Option(names = "--only", paramLabel = "<part>", description = "Run only seed or history (default: both).")
    String only;

    @Option(names = "--fresh-jvm-option", paramLabel = "<option>", split = ",", description = "Options of the fresh "
        + "JVMs (default: the launcher's, as ./tidemark runs a command); none to skip the fresh JVMs.")
    List<String> jvmOptions;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (only != null && !only.equals("seed") && !only.equals("history")) {
        throw invalid("--only: seed or history, not " + only);
      }
      if (arrivals < 1 || late < 1 || eventsPerDay < 1 || histories.stream().anyMatch(h -> h < 1)) {
        throw invalid("--histories, --late, --events-per-day and --arrivals must be >= 1");
      }
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      RestateBench bench = new RestateBench(lh, print, out.create(lh.config()));
      if (!"history".equals(only)) {
        bench.seed(!List.of("none").equals(jvmOptions), jvmOptions);
      }
      if (!"seed".equals(only)) {
        bench.run(histories, late, eventsPerDay, arrivals);
      }
    }
  }

  @Command(name = "streams", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Events/s of one availableNow run of dedup and of counts next to DuckDB over the same files; "
          + "state rows, state memory and checkpoint size over many runs, bounded vs unbounded dedup, with a chart. "
          + "Tables go to the `bench` namespace; data, checkpoints and the chart under --out."})
  static final class Streams extends Bench {
    @Option(names = "--sizes", split = ",", defaultValue = "100000,1000000",
        description = "Events per throughput run (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--repeat", defaultValue = "2", description = "Runs per measurement; the best counts "
        + "(default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--runs", defaultValue = "20", description = "Runs of the state benchmark (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--events-per-run", paramLabel = "<n>", defaultValue = "50000",
        description = "Events landed for each run of the state benchmark (default: ${DEFAULT-VALUE}).")
    int eventsPerRun;

    @Option(names = "--only", paramLabel = "<part>", description = "Run only throughput or state (default: both).")
    String only;

    @Mixin
    OutDir out;

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      Bootstrap.run(lh.spark(), lh.storage(), lh.config());
      StreamBench bench = new StreamBench(lh.spark(), print, out.create(lh.config()));
      if (only == null || only.equals("throughput")) {
        bench.throughput(sizes, repeat);
      }
      if (only == null || only.equals("state")) {
        bench.stateGrowth(runs, eventsPerRun);
      }
    }
  }

  @Command(name = "latency", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Per-arrival latency of every stream and where it goes: the seed arrivals in this JVM (each "
          + "stream, then `stream all`) and in fresh JVMs (tidemark stream all), arrivals on a "
          + "dimension grown in bulk, and dedup/counts over many events next to DuckDB. Everything runs in "
          + "namespaces, buckets and checkpoints of its own (bench_latency_*), never in the configured tables; on a "
          + "fresh home the staging branch they work on is made first."})
  static final class Latency extends Bench {
    @Option(names = "--companies", defaultValue = "100000",
        description = "Companies of the grown dimension (default: ${DEFAULT-VALUE}).")
    int companies;

    @Option(names = "--arrival-lines", paramLabel = "<n>", split = ",", defaultValue = "10,10,10000,10",
        description = "Event lines and company changes of each arrival on the grown dimension "
            + "(default: ${DEFAULT-VALUE}).")
    List<Integer> arrivalLines;

    @Option(names = "--events", defaultValue = "10000000",
        description = "Events of the dedup/counts run next to DuckDB; 0 skips it (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--seed-arrivals", paramLabel = "<n>",
        description = "Only the first N seed arrivals (default: all).")
    Integer seedArrivals;

    @Option(names = "--seed-rounds", paramLabel = "<n>", defaultValue = "1",
        description = "Times the seed arrivals go through `stream all` with and without recording their batches, "
            + "each time in new pipelines (default: ${DEFAULT-VALUE}).")
    int seedRounds;

    @Option(names = "--skip-cold", description = "Do not run `stream all` in fresh JVMs.")
    boolean skipCold;

    @Option(names = "--skip-resident", description = "Do not run the seed's commands through the resident driver "
        + "next to fresh JVMs (the driver of this home, or one started for the benchmark).")
    boolean skipResident;

    @Option(names = "--resident-commands", paramLabel = "<n>",
        description = "Only the first N of the seed's commands through the driver and in fresh JVMs: bootstrap, "
            + "each arrival's land, stream all and publish, the restatement's five stages, publish, check, sql "
            + "(default: all).")
    Integer residentCommands;

    @Option(names = "--cold-jvm-option", paramLabel = "<option>",
        description = "An option for the fresh JVMs, e.g. -XX:TieredStopAtLevel=1 (repeatable; default: none).")
    List<String> coldJvmOptions = new java.util.ArrayList<>();

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (companies < 1 || events < 0 || arrivalLines.stream().anyMatch(n -> n < 1)
          || (seedArrivals != null && seedArrivals < 1) || seedRounds < 1
          || (residentCommands != null && residentCommands < 1)) {
        throw invalid("--companies, --arrival-lines, --seed-arrivals, --seed-rounds and --resident-commands must be "
            + ">= 1, --events >= 0");
      }
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      new LatencyBench(lh, print, out.create(lh.config())).run(new LatencyBench.Options(companies, arrivalLines,
          events, !skipCold, coldJvmOptions, seedArrivals == null ? Integer.MAX_VALUE : seedArrivals, seedRounds,
          skipResident ? 0 : residentCommands == null ? Integer.MAX_VALUE : residentCommands));
    }
  }

  @Command(name = "maintenance", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Files per table and query times after many small arrivals, before and after compaction; "
          + "storage before and after garbage collection. Tables in the `bench` namespace; GC sweeps only it."})
  static final class Maintenance extends Bench {
    @Option(names = "--arrivals", defaultValue = "200",
        description = "Small arrivals streamed before compaction (default: ${DEFAULT-VALUE}).")
    int arrivals;

    @Option(names = "--events-per-arrival", paramLabel = "<n>", defaultValue = "100",
        description = "Events in each arrival (default: ${DEFAULT-VALUE}).")
    int eventsPerArrival;

    @Option(names = "--repeat", defaultValue = "3", description = "Runs of each query; the best counts "
        + "(default: ${DEFAULT-VALUE}).")
    int repeat;

    @Override
    void validate() {
      if (arrivals < 1 || eventsPerArrival < 1 || repeat < 1) {
        throw invalid("--arrivals, --events-per-arrival and --repeat must be >= 1");
      }
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      Bootstrap.run(lh.spark(), lh.storage(), lh.config());
      new MaintenanceBench(lh, print).run(arrivals, eventsPerArrival, repeat);
    }
  }

  @Command(name = "publish", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"What `tidemark publish` costs: per seed arrival in a warm JVM, `stream all` and the publish of "
          + "what it staged side by side, and the publish step by step; then the checks on the same arrivals after "
          + "a short history and one --factor times longer. Everything runs in namespaces and buckets of its own "
          + "(bench_publish_*) on Nessie branches of its own (deleted at the end), never the configured ones."})
  static final class Publish extends OnOwnBranches {
    @Option(names = "--seed-rounds", paramLabel = "<n>", defaultValue = "2", description = "Times the seed arrivals go "
        + "through "
        + "`stream all` and publish, each time in a new pipeline; the first warms the JVM (default: ${DEFAULT-VALUE}).")
    int seedRounds;

    @Option(names = "--history", defaultValue = "4", description = "Arrivals of the short history "
        + "(default: ${DEFAULT-VALUE}).")
    int history;

    @Option(names = "--factor", defaultValue = "10", description = "How many times longer the long history is "
        + "(default: ${DEFAULT-VALUE}).")
    int factor;

    @Option(names = "--measured", defaultValue = "3", description = "Arrivals measured after each history "
        + "(default: ${DEFAULT-VALUE}).")
    int measured;

    @Option(names = "--events-per-arrival", paramLabel = "<n>", defaultValue = "2000",
        description = "Events in each generated arrival (default: ${DEFAULT-VALUE}).")
    int eventsPerArrival;

    @Option(names = "--changes-per-arrival", paramLabel = "<n>", defaultValue = "20",
        description = "Company changes in each generated arrival (default: ${DEFAULT-VALUE}).")
    int changesPerArrival;

    @Option(names = "--repeat", defaultValue = "3", description = "Dry runs of the checks per measured arrival; the "
        + "best counts (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--compact", description = "Compact both pipelines after their history (and publish that), as "
        + "the maintenance DAG does, before the measured arrivals.")
    boolean compact;

    @Option(names = "--only", paramLabel = "<part>", description = "Run only seed or history (default: both).")
    String only;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (only != null && !only.equals("seed") && !only.equals("history")) {
        throw invalid("--only: seed or history, not " + only);
      }
      if (seedRounds < 1 || history < 1 || factor < 1 || measured < 1 || eventsPerArrival < 1
          || changesPerArrival < 0 || repeat < 1) {
        throw invalid("--seed-rounds, --history, --factor, --measured, --events-per-arrival and --repeat must be "
            + ">= 1, --changes-per-arrival >= 0");
      }
    }

    @Override
    void runOnOwnBranches(Lakehouse lh, PrintWriter print) throws Exception {
      // publish merges the whole staging branch: the benchmark's own, so it never publishes what the user staged
      new PublishBench(lh, print, out.create(lh.config())).run(new PublishBench.Options(seedRounds, history,
          factor, measured, eventsPerArrival, changesPerArrival, repeat, !"history".equals(only),
          !"seed".equals(only), compact));
    }
  }

  @Command(name = "drift", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"What schema drift costs: the raw stream's conversion of lines with no unknown key with and "
          + "without the rescued data, side by side; then `evolve promote` of a key after a history and after one "
          + "--factor times longer. Everything runs in namespaces and buckets of its own (bench_drift_*) on Nessie "
          + "branches of its own (deleted at the end), never the configured ones."})
  static final class Drift extends OnOwnBranches {
    @Option(names = "--lines", paramLabel = "<n>", defaultValue = "200000",
        description = "Lines converted in each round of the rescued data's cost (default: ${DEFAULT-VALUE}).")
    int lines;

    @Option(names = "--rounds", paramLabel = "<n>", defaultValue = "6",
        description = "Rounds of each variant, taking turns (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--history", paramLabel = "<n>", defaultValue = "5000",
        description = "Events of the short history before the promotion (default: ${DEFAULT-VALUE}).")
    int history;

    @Option(names = "--factor", paramLabel = "<n>", defaultValue = "10",
        description = "How many times longer the long history is (default: ${DEFAULT-VALUE}).")
    int factor;

    @Option(names = "--carrying", paramLabel = "<share>", defaultValue = "0.5",
        description = "The share of the history's events that carry the key, above 0 and at most 1 "
            + "(default: ${DEFAULT-VALUE}).")
    double carrying;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (lines < 1 || rounds < 1 || history < 1 || factor < 2) {
        throw invalid("--lines, --rounds and --history must be >= 1, --factor >= 2");
      }
      if (!(carrying > 0 && carrying <= 1)) {
        throw invalid("--carrying must be above 0 and at most 1, not " + carrying);
      }
    }

    @Override
    void runOnOwnBranches(Lakehouse lh, PrintWriter print) throws Exception {
      new DriftBench(lh, print, out.create(lh.config())).run(new DriftBench.Options(lines, rounds, history, factor,
          carrying));
    }
  }

  @Command(name = "expectations", mixinStandardHelpOptions = true, sortOptions = false,
      description = "What expectations cost stream all: the seed's events with five row expectations and with none, "
          + "each a pipeline of its own, taking turns arrival by arrival over the same lines.")
  static final class Expectations extends OnOwnBranches {
    @Option(names = "--events", paramLabel = "<n>", defaultValue = "50000",
        description = "Events per arrival (default: ${DEFAULT-VALUE}).")
    int events;

    @Option(names = "--arrivals", paramLabel = "<n>", defaultValue = "3",
        description = "Arrivals of each variant in a round (default: ${DEFAULT-VALUE}).")
    int arrivals;

    @Option(names = "--rounds", paramLabel = "<n>", defaultValue = "2",
        description = "Rounds, each with new pipelines of both variants (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (events < 1 || arrivals < 1 || rounds < 1) {
        throw invalid("--events, --arrivals and --rounds must be >= 1");
      }
    }

    @Override
    void runOnOwnBranches(Lakehouse lh, PrintWriter print) throws Exception {
      new ExpectationsBench(lh, print, out.create(lh.config())).run(new ExpectationsBench.Options(events, arrivals,
          rounds));
    }
  }

  /**
   * A benchmark whose pipelines bootstrap and merge: on a published and a staging branch of its own, made before it
   * runs and deleted after, never the ones the user publishes and stages on.
   */
  abstract static class OnOwnBranches extends Bench {
    private final String branches = "bench_" + getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + "_"
        + Long.toHexString(System.nanoTime() & 0xffffff);

    abstract void runOnOwnBranches(Lakehouse lh, PrintWriter print) throws Exception;

    @Override
    void prepare(Lakehouse lh) {
      // the branches are the benchmark's own, made (and deleted) by run
    }

    @Override
    TidemarkConfig configure(TidemarkConfig writing) {
      return writing.with(java.util.Map.of(io.tidemark.config.Setting.NESSIE_REF, branches + "_main",
          io.tidemark.config.Setting.STAGING_BRANCH, branches + "_ingest"));
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      try (io.tidemark.lakehouse.nessie.NessieRefs refs = new io.tidemark.lakehouse.nessie.NessieRefs(
          lh.endpoints())) {
        // before the SparkSession, whose catalog works on the staging branch; the pipelines' bootstrap merges it
        // into the published branch, which Nessie does only for branches with a common ancestor commit
        String published = lh.config().publishedRef();
        refs.ensureBranch(published, refs.defaultBranch());
        if (refs.log(published).findFirst().isEmpty()) {
          refs.mark(published, "tidemark bench " + spec.name() + ": the benchmark's published branch",
              io.tidemark.lakehouse.spark.SparkSessions.AUTHOR, java.util.Map.of());
        }
        refs.ensureBranch(lh.config().stagingBranch(), published);
        try {
          runOnOwnBranches(lh, print);
        } finally {
          refs.deleteBranch(lh.config().stagingBranch());
          refs.deleteBranch(published);
        }
      }
    }
  }

  @Command(name = "driver", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"A soak of the resident driver: many mixed commands through one driver (land, stream all, "
          + "publish, reads, checks, restatements, and commands that fail), with what the driver holds after a full "
          + "GC (heap, threads, open files) sampled as they run and its slope printed; the first rounds also in "
          + "fresh JVMs, whose results must be the same (exit 1 when one is not).",
          "It runs on two pipelines with namespaces and branches of their own (bench_latency_soak_*), on the "
              + "driver of this home, or one it starts and stops."})
  static final class DriverSoakBench extends Bench {
    @Option(names = "--commands", paramLabel = "<n>", defaultValue = "1000",
        description = "Commands through the driver (default: ${DEFAULT-VALUE}).")
    int commands;

    @Option(names = "--compare-rounds", paramLabel = "<n>", defaultValue = "3",
        description = "Rounds (of 8 commands) also run in fresh JVMs and compared (default: ${DEFAULT-VALUE}).")
    int compareRounds;

    @Option(names = "--sample-every", paramLabel = "<n>", defaultValue = "25",
        description = "Commands between two samples of what the driver holds (default: ${DEFAULT-VALUE}).")
    int sampleEvery;

    @Option(names = "--events-per-arrival", paramLabel = "<n>", defaultValue = "200",
        description = "Generated events of each round's arrival (default: ${DEFAULT-VALUE}).")
    int eventsPerArrival;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (commands < 1 || sampleEvery < 1 || compareRounds < 0 || eventsPerArrival < 1) {
        throw invalid("--commands, --sample-every and --events-per-arrival must be at least 1, --compare-rounds 0");
      }
    }

    @Override
    void prepare(Lakehouse lh) {
      // the pipelines bootstrap themselves through the commands; this JVM needs no Spark
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      int different = new DriverSoak(lh.config(), print, out.create(lh.config())).run(
          new DriverSoak.Options(commands, compareRounds, sampleEvery, eventsPerArrival));
      if (different > 0) {
        throw new IllegalStateException(different + " result(s) of the driver were not those of fresh JVMs (above)");
      }
    }
  }

  @Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Many arrivals of realistic size, each through `land`, `stream all` and `publish` in JVMs of "
          + "their own (the launcher next to the jar), as the arrivals DAG runs them; one pipeline compacted every "
          + "--compact-every arrivals as the maintenance DAG does, the same arrivals beside it in one never compacted. "
          + "Every failure is reported with the trace from its run's log, and the soak goes on. Per arrival: the time "
          + "(wall and CPU) of `stream all` and `publish`, and what grows (snapshots, data files, manifests, metadata, "
          + "the stream-batches table, checkpoints); at the end, the first arrivals' times next to the last ones'. "
          + "Pipelines of their own (soak_*: namespaces, buckets, checkpoints, Nessie branches), never the configured "
          + "one."})
  static final class Soak extends Bench {
    @Option(names = "--arrivals", paramLabel = "<n>", defaultValue = "100", description = "Arrivals through each "
        + "pipeline (default: ${DEFAULT-VALUE}).")
    int arrivals;

    @Option(names = "--events-per-arrival", paramLabel = "<n>", defaultValue = "50000", description = "Events of each "
        + "arrival (default: ${DEFAULT-VALUE}).")
    int eventsPerArrival;

    @Option(names = "--changes-per-arrival", paramLabel = "<n>", defaultValue = "500", description = "Company changes "
        + "of each arrival (default: ${DEFAULT-VALUE}).")
    int changesPerArrival;

    @Option(names = "--keys", defaultValue = "2000", description = "Companies the changes are about (default: "
        + "${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--seed", defaultValue = "42", description = "The generator's seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--compact-every", paramLabel = "<n>", defaultValue = "10", description = "`maintain compact` "
        + "after every N arrivals in the compacted pipeline; 0: only the never compacted one (default: "
        + "${DEFAULT-VALUE}).")
    int compactEvery;

    @Option(names = "--plain", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Run the never compacted pipeline beside the compacted one (default: yes; --no-plain: the "
            + "compacted one alone).")
    boolean plain;

    @Option(names = "--busy-threads", paramLabel = "<n>", defaultValue = "0", description = "Threads that keep a CPU "
        + "busy beside the commands, in this process (default: ${DEFAULT-VALUE}).")
    int busyThreads;

    @Option(names = "--timeout", paramLabel = "<duration>", defaultValue = "30 minutes", description = "A command "
        + "taking longer is killed and reported as a failure (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--keep", description = "Keep the pipelines' Nessie branches at the end (default: deleted).")
    boolean keep;

    @Mixin
    OutDir out;

    @Override
    void validate() {
      if (arrivals < 1 || eventsPerArrival < 1 || changesPerArrival < 0 || keys < 1 || compactEvery < 0
          || busyThreads < 0) {
        throw invalid("--arrivals, --events-per-arrival and --keys must be >= 1; --changes-per-arrival, "
            + "--compact-every and --busy-threads >= 0");
      }
      duration();
    }

    private java.time.Duration duration() {
      try {
        return io.tidemark.config.Durations.parse(timeout);
      } catch (RuntimeException e) {
        throw invalid("--timeout: " + e.getMessage());
      }
    }

    @Override
    void run(Lakehouse lh, PrintWriter print) throws Exception {
      new SoakBench(lh, print, out.create(lh.config()).resolve("soak")).run(new SoakBench.Options(arrivals,
          eventsPerArrival, changesPerArrival, keys, seed, compactEvery, plain, busyThreads, duration(), keep));
    }
  }
}
