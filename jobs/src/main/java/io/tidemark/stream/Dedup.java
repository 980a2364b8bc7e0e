package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.Events;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One row per event_id: {@code dropDuplicatesWithinWatermark}, which remembers an id only for the watermark
 * delay, so its state stays bounded. A duplicate that comes after that horizon, or an event later than the
 * watermark, is not caught here; the restatement job repairs both from the raw archive.
 */
public final class Dedup {
  public static final String NAME = "dedup";

  /** How duplicates are found. */
  public enum Mode {
    /** The production form: ids are forgotten once behind the watermark. */
    WITHIN_WATERMARK,
    /** Plain {@code dropDuplicates} without watermark: every id kept forever; for comparison in benchmarks. */
    UNBOUNDED
  }

  private Dedup() {}

  public static RunReport run(SparkSession spark, String source, TableName table, String checkpoint,
                              Duration watermark, Mode mode) {
    return run(spark, source, table, checkpoint, watermark, mode, CrashPoints.NONE);
  }

  public static RunReport run(SparkSession spark, String source, TableName table, String checkpoint,
                              Duration watermark, Mode mode, CrashPoints crash) {
    return run(spark, source, table, checkpoint, watermark, mode, crash, Events.FEED);
  }

  /**
   * The same for the events as declared when the run starts ({@code feed}: promoted fields too, which the rows carry
   * into the table). The state is keyed on the event id alone, so a field promoted between two runs changes nothing
   * in it: the same checkpoint goes on.
   */
  public static RunReport run(SparkSession spark, String source, TableName table, String checkpoint,
                              Duration watermark, Mode mode, CrashPoints crash, FeedSchema feed) {
    Preflight.check(spark, source, TableCatalog.events(table, feed));
    Dataset<Row> events = LineFormat.of(feed).valid(spark, source);
    Dataset<Row> unique = mode == Mode.WITHIN_WATERMARK
        ? events.withWatermark(Events.FEED.eventTime().name(), Durations.spark(watermark))
            .dropDuplicatesWithinWatermark(new String[] {Events.FEED.key().name()})
        : events.dropDuplicates(new String[] {Events.FEED.key().name()});
    BatchCommitter committer = new BatchCommitter(NAME, checkpoint, crash);
    TrailingBatch.restoreIfLost(spark, checkpoint);
    return StreamRun.run(NAME, "event", StreamRun.availableNow(unique, checkpoint,
        (batch, id) -> committer.append(id, Map.of(table, batch), BatchCommitter.Output.LARGE)), committer);
  }
}
