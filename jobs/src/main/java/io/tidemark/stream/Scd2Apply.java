package io.tidemark.stream;

import java.util.Map;
import java.util.function.Consumer;

/**
 * An SCD2 dimension's one job that runs on two engines: its changes applied to the change log and the
 * dimension, so that the dimension equals the history rebuilt from the log ({@link io.tidemark.core.Scd2History}).
 * The changes the log lacks are appended to it (a change applied once stays once), then only the dimension's
 * difference ({@link io.tidemark.core.Scd2Difference}) is written, keyed on (key, valid from): a batch applied
 * again finds nothing to do. {@link Scd2OnDriver} settles the few changes of a small stream batch or of a
 * restatement on the driver; {@link Scd2InSpark} a large batch in Spark. One contract test runs against both.
 *
 * @param <B> the changes as the engine takes them: rows on the driver, a Dataset in Spark
 */
public interface Scd2Apply<B> {
  /** Applies the changes (normalized, none late), committing through {@code commits}. */
  Applied apply(B changes, Commits commits);

  /** What was applied: changes new to the log, and versions of the dimension written or removed. */
  record Applied(long fresh, long versions) {}

  /**
   * How the two commits are made: each is told how many rows it commits, and gets the write to run with the summary
   * properties its commit must carry (the stream's exactly-once provenance, the restatement's run).
   */
  interface Commits {
    void toLog(long rows, Consumer<Map<String, String>> write);

    void toDimension(long rows, Consumer<Map<String, String>> write);
  }
}
