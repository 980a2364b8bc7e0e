package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import java.time.Duration;
import java.util.List;

/**
 * A dimension feed: changes of keyed things (a customer's segment from a moment on, a delete), kept as an SCD2
 * dimension by its scd2 stream, which logs each change once ({@code changes}) and keeps the dimension equal to the
 * history rebuilt from the log. A change later than the watermark (behind the newest change seen) is left to the
 * restatement, which applies it from the raw archive. {@code expectations}: what its changes and arrivals are held to.
 */
public record DimensionFeed(DimensionSchema dimension, Stage raw, String stream, TableName table, TableName changes,
                            Duration watermark, List<Expectation> expectations) implements Feed {
  public DimensionFeed {
    expectations = List.copyOf(expectations);
  }

  @Override
  public List<io.tidemark.core.Column> identity() {
    List<io.tidemark.core.Column> out = new java.util.ArrayList<>(schema().key());
    out.add(schema().eventTime());
    return out;
  }

  @Override
  public FeedSchema schema() {
    return dimension.feed();
  }
}
