package io.tidemark.stream;

import io.tidemark.config.TidemarkConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** What `stream all` runs: every stream as configured ({@link StreamSpec#all}), one after the other. */
public final class Streams {
  private Streams() {}

  /**
   * One availableNow run of each stream, in {@link StreamKind} order (the raw archives before the streams that
   * read the same data); a stream whose dataset has not landed yet is skipped. One after the other: run at once
   * (a thread and scheduler pool each), a SIGKILL in the middle of a run left the dedup table with rows twice (ExactlyOnceIT), so
   * the streams stay sequential until that is understood.
   */
  public static List<RunReport> all(SparkSession spark, TidemarkConfig config) {
    List<RunReport> reports = new ArrayList<>();
    for (StreamSpec s : StreamSpec.all(config)) {
      if (landed(spark, s.source())) {
        reports.add(s.run(spark));
      }
    }
    return reports;
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
