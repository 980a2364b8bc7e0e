package io.tidemark.report;

import io.tidemark.config.TableName;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.KeySurvey;
import io.tidemark.core.Rescued;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The keys a raw archive's rows carried beyond the feed's columns ({@link KeySurvey}), read from its rescued data: the
 * rows are grouped by arrival and rescued data in Spark, so the driver sees each distinct shape of drift once.
 */
public final class RescuedKeys {
  private RescuedKeys() {}

  /** The findings of one raw archive ({@code archive}: a table, or {@code table@ref}), the feed as it declares it. */
  public static List<KeySurvey.Finding> of(SparkSession spark, String archive, FeedSchema feed) {
    FeedSchema declared = FeedDeclarations.read(spark, archive, feed);
    KeySurvey survey = new KeySurvey(declared);
    String rescued = Rescued.DATA.name();
    for (Row r : spark.sql("SELECT " + Ingest.ARRIVAL + ", " + rescued + ", count(*) FROM " + archive + " WHERE "
        + rescued + " IS NOT NULL GROUP BY 1, 2").collectAsList()) {
      survey.add(r.isNullAt(0) ? null : r.getInt(0), r.getString(1), r.getLong(2));
    }
    return survey.findings();
  }

  /** The findings of every raw archive of a pipeline, feed by feed in its order. */
  public static List<KeySurvey.Finding> of(SparkSession spark, Pipeline pipeline) {
    List<KeySurvey.Finding> out = new java.util.ArrayList<>();
    for (Feed f : pipeline.feeds()) {
      out.addAll(of(spark, f.raw().table().sql(), f.schema()));
    }
    return out;
  }
}
