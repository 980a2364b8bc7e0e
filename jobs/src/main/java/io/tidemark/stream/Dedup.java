package io.tidemark.stream;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.TableCatalog;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One row per key of a fact feed: {@code dropDuplicatesWithinWatermark}, which remembers a key only for the watermark
 * delay, so its state stays bounded. A repeat that comes after that horizon, or a record later than the watermark, is
 * not caught here; the restatement job repairs both from the raw archive.
 */
public final class Dedup {
  /** How duplicates are found. */
  public enum Mode {
    /** The production form: keys are forgotten once behind the watermark. */
    WITHIN_WATERMARK,
    /** Plain {@code dropDuplicates} without watermark: every key kept forever; for comparison in benchmarks. */
    UNBOUNDED
  }

  private Dedup() {}

  /**
   * One availableNow run of the stream {@code name} for the feed as declared when the run starts ({@code declared}:
   * promoted fields too, which the rows carry into the table). The state is keyed on the feed's key alone, so a field
   * promoted between two runs changes nothing in it: the same checkpoint goes on.
   */
  public static RunReport run(SparkSession spark, String name, String source, TableName table, String checkpoint,
                              Duration watermark, Mode mode, CrashPoints crash, FeedSchema declared) {
    return run(spark, name, source, table, checkpoint, watermark, mode, crash, declared, Judgement.none());
  }

  /**
   * The same, the lines judged by the feed's row expectations first ({@code judgement}): a line that a drop or fail
   * expectation quarantines is not deduplicated, so it never takes the place of a good repeat of its key.
   */
  public static RunReport run(SparkSession spark, String name, String source, TableName table, String checkpoint,
                              Duration watermark, Mode mode, CrashPoints crash, FeedSchema declared,
                              Judgement judgement) {
    Preflight.check(spark, source, TableCatalog.deduplicated(table, declared, watermark));
    Dataset<Row> records = LineFormat.of(declared, judgement).valid(spark, source);
    String[] key = declared.key().stream().map(io.tidemark.core.Column::name).toArray(String[]::new);
    Dataset<Row> unique = mode == Mode.WITHIN_WATERMARK
        ? records.withWatermark(declared.eventTime().name(), Durations.spark(watermark))
            .dropDuplicatesWithinWatermark(key)
        : records.dropDuplicates(key);
    BatchCommitter committer = new BatchCommitter(name, checkpoint, crash);
    TrailingBatch.restoreIfLost(spark, checkpoint);
    return StreamRun.run(name, "event", StreamRun.availableNow(unique, checkpoint,
        (batch, id) -> committer.append(id, Map.of(table, batch), BatchCommitter.Output.LARGE)), committer);
  }
}
