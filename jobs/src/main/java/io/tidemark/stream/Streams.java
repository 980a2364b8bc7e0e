package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TidemarkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;

/** What `stream all` runs: every stream as configured ({@link StreamSpec#all}), at once. */
public final class Streams {
  private Streams() {}

  /**
   * A duration of every report of {@code stream all}: from the end of the last run's own work (its batches, not
   * their record) to the end of the command, which is what recording adds to the command's time beyond the CPU it
   * takes from the runs: the last run's record and the commit.
   */
  public static final String AFTER_LAST_RUN = "all.afterLastRun";

  /**
   * One availableNow run of each stream, at once (see {@link ConcurrentRuns}): they read the landing zone
   * independently and write their own tables, but for the raw archives, which all append to the quarantine and the
   * expectations: their writes of those take turns ({@link BatchCommitter}), and each commit names its query and
   * batch, so exactly-once holds per stream. Most of a small arrival's time in each stream is waiting (on jobs, the
   * catalog, object storage), so they overlap well on two cores. Each keeps its own checkpoint and exactly-once commits
   * (ExactlyOnceIT crashes one while the others run). A failing stream stops none of the others, so the raw
   * archives keep what landed even when a later stream fails. A stream whose feed has not landed yet is skipped.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    return all(spark, config, true);
  }

  /**
   * The same; {@code record}: whether the runs' micro-batches are recorded in the stream-batches table, which every
   * run does but the benchmark that measures what recording costs. Each run's records are written as it ends, and
   * committed together once the last one has ended ({@link StreamBatches.Recorder}), also when one of them failed.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config, boolean record) {
    return all(spark, config, record, CrashPoints.NONE);
  }

  /** The same, halting at {@code crash}'s points of the streams' batches. */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config, boolean record, CrashPoints crash) {
    return all(spark, config, record, crash, r -> { });
  }

  /**
   * The same, handing {@code ended} each run's report as the run ends (on its thread): when another run fails, what
   * the runs that committed did is still said.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config, boolean record, CrashPoints crash,
                                    java.util.function.Consumer<RunReport> ended) {
    Map<String, Boolean> landed = preflight(spark, config);
    StreamBatches.Recorder recorder = record ? new StreamBatches.Recorder(spark, config.pipeline().shared().streamBatches())
        : null;
    AtomicLong lastRunEnd = new AtomicLong(System.nanoTime());
    List<ConcurrentRuns.Run> runs = new ArrayList<>();
    for (StreamSpec s : StreamSpec.all(config)) {
      if (landed.get(s.source())) {
        runs.add(new ConcurrentRuns.Run(s.name(), () -> {
          RunReport r = s.runUnrecorded(spark, crash);
          lastRunEnd.accumulateAndGet(System.nanoTime(), Math::max);
          if (recorder != null) {
            long t0 = System.nanoTime();
            recorder.add(s, r);
            r.durationsMs().put(StreamSpec.RECORD, (System.nanoTime() - t0) / 1_000_000);
          }
          ended.accept(r);
          return r;
        }));
      }
    }
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, runs);
    RuntimeException recordFailed = null;
    if (recorder != null) {
      try {
        long t0 = System.nanoTime();
        recorder.commit();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        outcomes.stream().filter(o -> o.report() != null)
            .forEach(o -> o.report().durationsMs().merge(StreamSpec.RECORD, ms, Long::sum));
      } catch (RuntimeException e) {
        // after the runs' own failures, which say more; alone when every run committed
        recordFailed = e;
      }
    }
    long after = (System.nanoTime() - lastRunEnd.get()) / 1_000_000;
    outcomes.stream().filter(o -> o.report() != null)
        .forEach(o -> o.report().durationsMs().put(AFTER_LAST_RUN, after));
    return ConcurrentRuns.reportsOf(outcomes, recordFailed);
  }

  /**
   * Before any stream starts: every condition through Spark's analyzer (a bad rule stops the command), the rules each
   * raw archive recorded against the file's (else one line, not one per stream), and whether each source has landed
   * (a stream whose source has not is skipped). Each is a round trip or two (a table's metadata, a listing), so they
   * run at once, on threads of this command (they keep its scope and its session); a failure is thrown as it was
   * found, the analyzer's first, then the feeds' in the file's order.
   */
  private static Map<String, Boolean> preflight(SparkSession spark, TidemarkConfig config) {
    List<Callable<Object>> checks = new ArrayList<>();
    checks.add(() -> {
      Judgement.check(spark, config.pipeline());
      return null;
    });
    config.pipeline().feeds().forEach(f -> checks.add(() -> {
      StreamSpec.requireRecorded(spark, f);
      return null;
    }));
    List<String> sources = StreamSpec.all(config).stream().map(StreamSpec::source).distinct().toList();
    sources.forEach(source -> checks.add(() -> landed(spark, source)));
    ExecutorService threads = Executors.newFixedThreadPool(checks.size(), r -> {
      Thread t = new Thread(r, "tidemark-preflight");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<Object>> answers = threads.invokeAll(checks);
      List<Object> values = new ArrayList<>();
      for (Future<Object> answer : answers) {
        try {
          values.add(answer.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
      Map<String, Boolean> landed = new HashMap<>();
      for (int i = 0; i < sources.size(); i++) {
        landed.put(sources.get(i), (Boolean) values.get(values.size() - sources.size() + i));
      }
      return landed;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StreamException("interrupted before the streams ran", e);
    } finally {
      threads.shutdownNow();
    }
  }

  private static boolean landed(SparkSession spark, String source) {
    try {
      Preflight.requireSource(spark, source);
      return true;
    } catch (StreamException e) {
      return false;
    }
  }
}
