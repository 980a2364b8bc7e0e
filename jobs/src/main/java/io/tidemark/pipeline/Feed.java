package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import io.tidemark.core.FeedSchema;
import java.util.List;

/**
 * A feed of a pipeline: one kind of data that lands (its own directory in the landing zone, {@code <name>/}), declared
 * in the pipeline file, archived by its raw stream and read by its other streams. A fact feed ({@link FactFeed}) is
 * deduplicated and aggregated; a dimension feed ({@link DimensionFeed}) is kept as an SCD2 dimension.
 */
public sealed interface Feed permits FactFeed, DimensionFeed {
  /** What its lines hold, as the file declares it (the fields promoted into it are the raw archive's to say). */
  FeedSchema schema();

  /** Its raw archive's stream and table. */
  Stage raw();

  /** Its expectations as the file declares them now, in the file's order ({@link ExpectationVersions}: which judged what). */
  List<Expectation> expectations();

  /**
   * What names one line of the feed, in messages, samples and corrections: a fact's key; a dimension's key and change
   * time (a change of a thing).
   */
  default List<io.tidemark.core.Column> identity() {
    return schema().key();
  }

  /** The feed's name: its landing directory, and how commands and messages name it. */
  default String name() {
    return schema().name();
  }

  /** A stream of the feed that writes one table (the raw archive, the deduplication). */
  record Stage(String stream, TableName table) {}
}
