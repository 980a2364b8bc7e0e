package io.tidemark.audit;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.pipeline.Feed;
import io.tidemark.core.Ingest;
import io.tidemark.core.Lines;
import io.tidemark.core.Quarantine;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.land.Lander;
import org.apache.spark.sql.SparkSession;

/**
 * Every line landed under a prefix is archived or quarantined ({@link Lines}): per feed, the lines of the files in
 * the landing zone against the rows of the raw archive and of the quarantine that came from them, whole tables (what
 * {@code tidemark check} shows; the publish gate checks what an arrival staged, file by file).
 */
public final class LandedLines {
  /** A feed's lines: its files under {@code source} and their account. */
  public record FeedLines(Feed feed, String source, int files, Lines.Account account) {}

  private final SparkSession spark;
  private final Storage storage;
  private final TidemarkConfig config;

  public LandedLines(SparkSession spark, Storage storage, TidemarkConfig config) {
    this.spark = spark;
    this.storage = storage;
    this.config = config;
  }

  /** The lines of {@code feed} landed under {@code prefix} of the landing bucket, and where each went. */
  public FeedLines of(Feed feed, String prefix) {
    Lander lander = new Lander(storage, config.landingBucket(), prefix);
    long landed = 0;
    var files = lander.listed(feed.name());
    for (Storage.ObjectInfo o : files) {
      landed += Lines.count(storage.get(config.landingBucket(), o.key()));
    }
    String source = lander.sourceUri(feed.name());
    String from = "startswith(" + Ingest.SOURCE_FILE + ", '" + source.replace("'", "''") + "')";
    TableName raw = feed.raw().table();
    long archived = count("SELECT count(*) FROM " + raw.sql() + " WHERE " + from);
    long quarantined = count("SELECT count(*) FROM " + config.pipeline().shared().rejected().sql() + " WHERE "
        + Quarantine.DATASET + " = '" + feed.name() + "' AND " + from);
    return new FeedLines(feed, source, files.size(), new Lines.Account(landed, archived, quarantined));
  }

  private long count(String sql) {
    return spark.sql(sql).first().getLong(0);
  }
}
