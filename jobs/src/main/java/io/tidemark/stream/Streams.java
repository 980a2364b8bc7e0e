package io.tidemark.stream;

import io.tidemark.config.TidemarkConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/** What `stream all` runs: every stream as configured ({@link StreamSpec#all}), at once. */
public final class Streams {
  private Streams() {}

  /**
   * One availableNow run of each stream, at once (see {@link ConcurrentRuns}): they read the landing zone
   * independently and write different tables; the two raw archives, which share the quarantine, run one after
   * the other in one lane. Most of a small arrival's time in each stream is waiting (on jobs, the catalog, object
   * storage), so they overlap well on two cores. Each keeps its own checkpoint and exactly-once commits
   * (ExactlyOnceIT crashes one while the others run). A failing stream stops none of the others, so the raw
   * archives keep what landed even when a later stream fails. A stream whose dataset has not landed yet is skipped.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    return all(spark, config, true);
  }

  /**
   * The same; {@code record}: whether each run's micro-batches are recorded in the stream-batches table, which
   * every run does but the benchmark that measures what recording costs.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config, boolean record) {
    List<ConcurrentRuns.Run> runs = new ArrayList<>();
    Map<String, Boolean> landed = new HashMap<>();
    for (StreamSpec configured : StreamSpec.all(config)) {
      StreamSpec s = record ? configured : configured.withBatches(null);
      if (landed.computeIfAbsent(s.source(), source -> landed(spark, source))) {
        String lane = s.kind() == StreamKind.RAW || s.kind() == StreamKind.RAW_COMPANIES ? RawArchive.NAME : s.name();
        runs.add(new ConcurrentRuns.Run(lane, () -> s.run(spark)));
      }
    }
    return ConcurrentRuns.run(spark, runs);
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
