package io.tidemark.stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.window;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.spark.SparkAggregates;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.pipeline.Aggregate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A windowed aggregate of a fact feed ({@link Aggregation}): per group and event-time window its measures, appended
 * when the watermark finalizes the window. Each window is written once, and records that arrive after it finalized
 * are dropped (the restatement job picks them up from the raw archive).
 */
public final class WindowedAggregate {
  /** The window's struct, named apart from the feed's columns (one may be called window). */
  private static final String WINDOW = "__window";

  private WindowedAggregate() {}

  /**
   * The windows of {@code records} (the feed's valid rows) as the aggregate's table holds them: the grouping columns,
   * the window's start ({@link io.tidemark.core.Windows#start}: Spark's {@code window()}, tested equal to it), the
   * measures.
   */
  static Dataset<Row> windows(Dataset<Row> records, Aggregation a, Column eventTime) {
    List<org.apache.spark.sql.Column> groups = new ArrayList<>();
    groups.add(window(col(eventTime.name()), Durations.spark(a.windows().size())).as(WINDOW));
    a.groupBy().forEach(g -> groups.add(col(g.name())));
    org.apache.spark.sql.Column[] measures = SparkAggregates.measures(a);
    List<org.apache.spark.sql.Column> out = new ArrayList<>();
    a.groupBy().forEach(g -> out.add(col(g.name())));
    out.add(col(WINDOW + ".start").as(a.windowStart().name()));
    a.measures().forEach(m -> out.add(col(m.name())));
    return records.groupBy(groups.toArray(new org.apache.spark.sql.Column[0]))
        .agg(measures[0], java.util.Arrays.copyOfRange(measures, 1, measures.length))
        .select(out.toArray(new org.apache.spark.sql.Column[0]));
  }

  /**
   * What the watermark drops, as the batch record names it: a stateful aggregate drops what it holds, a partial result
   * per window and group (a "partial count" when counts are all it keeps).
   */
  static String lateUnit(Aggregation a) {
    return a.measures().stream().allMatch(m -> m.function() == io.tidemark.core.Measure.Function.COUNT)
        ? "partial count" : "partial aggregate";
  }

  /** One availableNow run of the aggregate's stream over the feed's lines under {@code source}. */
  public static RunReport run(SparkSession spark, Aggregate aggregate, FeedSchema feed, String source,
                              TableName table, String checkpoint, CrashPoints crash) {
    return run(spark, aggregate, feed, Judgement.none(), source, table, checkpoint, crash);
  }

  /** The same, over the lines the feed's row expectations keep ({@code judgement}): a dropped or held line counts for nothing. */
  public static RunReport run(SparkSession spark, Aggregate aggregate, FeedSchema feed, Judgement judgement,
                              String source, TableName table, String checkpoint, CrashPoints crash) {
    Preflight.check(spark, source, TableCatalog.aggregate(table, aggregate));
    Dataset<Row> windows = windows(LineFormat.of(feed, judgement).valid(spark, source)
        .withWatermark(feed.eventTime().name(), Durations.spark(aggregate.watermark())), aggregate.rule(),
        feed.eventTime());
    String name = aggregate.name();
    BatchCommitter committer = new BatchCommitter(name, checkpoint, crash);
    TrailingBatch.restoreIfLost(spark, checkpoint);
    return StreamRun.run(name, lateUnit(aggregate.rule()), StreamRun.availableNow(windows, checkpoint,
        (batch, id) -> committer.append(id, Map.of(table, batch), BatchCommitter.Output.SMALL)), committer);
  }
}
