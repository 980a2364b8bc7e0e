package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.TidemarkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
    // every condition through Spark's analyzer first: a bad rule stops the command before any stream starts
    Judgement.check(spark, config.pipeline());
    // and the rules the raw archives recorded are the file's: else one line, not one per stream
    StreamSpec.requireRecorded(spark, config.pipeline());
    StreamBatches.Recorder recorder = record ? new StreamBatches.Recorder(spark, config.pipeline().shared().streamBatches())
        : null;
    AtomicLong lastRunEnd = new AtomicLong(System.nanoTime());
    List<ConcurrentRuns.Run> runs = new ArrayList<>();
    Map<String, Boolean> landed = new HashMap<>();
    for (StreamSpec s : StreamSpec.all(config)) {
      if (landed.computeIfAbsent(s.source(), source -> landed(spark, source))) {
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

  private static boolean landed(SparkSession spark, String source) {
    try {
      Preflight.requireSource(spark, source);
      return true;
    } catch (StreamException e) {
      return false;
    }
  }
}
