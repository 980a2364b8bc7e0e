package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.window;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.core.Events;
import io.tidemark.core.WindowCounts;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Events per company and event-time window, appended when the watermark finalizes the window: each window is
 * written once, and events that arrive after it finalized are dropped (the restatement job picks them up
 * from the raw archive). Columns: {@link WindowCounts#SCHEMA}.
 */
public final class WindowedCounts {
  public static final String NAME = "windowed-counts";

  /** The watermark delay and the window size. */
  public record Options(Duration watermark, Duration window) {
    /** The settings' defaults ({@link Setting#COUNTS_WATERMARK}, {@link Setting#COUNTS_WINDOW}). */
    public static Options defaults() {
      return new Options(Setting.COUNTS_WATERMARK.defaultDuration(), Setting.COUNTS_WINDOW.defaultDuration());
    }
  }

  private WindowedCounts() {}

  /**
   * Events per company and window ({@link Windows#start}: Spark's {@code window()}, tested equal to it), as the
   * counts table holds them.
   */
  static Dataset<Row> counts(Dataset<Row> events, Duration window) {
    return events.groupBy(window(col(Events.EVENT_TS.name()), Durations.spark(window)), col(Events.COMPANY_ID.name()))
        .count()
        .select(col(Events.COMPANY_ID.name()).as(WindowCounts.COMPANY_ID.name()),
            col("window.start").as(WindowCounts.W_START.name()), col("count").as(WindowCounts.N.name()));
  }

  public static RunReport run(SparkSession spark, String source, TableName table, String checkpoint,
                              Options options) {
    return run(spark, source, table, checkpoint, options, CrashPoints.NONE);
  }

  public static RunReport run(SparkSession spark, String source, TableName table, String checkpoint,
                              Options options, CrashPoints crash) {
    Preflight.check(spark, source, TableCatalog.eventCounts(table));
    Dataset<Row> counts = counts(LineFormat.EVENTS.valid(spark, source)
        .withWatermark(Events.EVENT_TS.name(), Durations.spark(options.watermark())), options.window());
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint, crash);
    TrailingBatch.restoreIfLost(spark, checkpoint);
    return StreamRun.run(NAME, "partial count", StreamRun.availableNow(counts, checkpoint,
        (batch, id) -> committer.append(id, Map.of(table, batch), BatchCommitter.Output.SMALL)), committer);
  }
}
