package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import java.util.List;

/**
 * One stream of a pipeline: what kind it is, its name (what its commits carry and its checkpoint's directory), the
 * feed it reads, the tables it writes ({@code table} carries its watermark; {@code sideTable} is the quarantine of a
 * raw archive or the change log of a dimension, null otherwise) and its watermark delay (none for a raw archive).
 */
public record StreamDef(Kind kind, String name, Feed feed, Aggregate aggregate) {
  /** What a stream does. */
  public enum Kind {
    /** The raw archive of a feed, and the quarantine. */
    RAW,
    /** One row per key of a fact feed. */
    DEDUP,
    /** A windowed aggregate of a fact feed. */
    AGGREGATE,
    /** A dimension feed kept as an SCD2 dimension. */
    SCD2
  }

  /** The table whose commits carry the stream's watermark. */
  public TableName table() {
    return switch (kind) {
      case RAW -> feed.raw().table();
      case DEDUP -> ((FactFeed) feed).dedupTable();
      case AGGREGATE -> aggregate.table();
      case SCD2 -> ((DimensionFeed) feed).table();
    };
  }

  /** The tables it writes. */
  public List<TableName> tables(SharedTables shared) {
    return switch (kind) {
      case RAW -> List.of(feed.raw().table(), shared.rejected(), shared.expectations());
      case SCD2 -> List.of(((DimensionFeed) feed).changes(), ((DimensionFeed) feed).table());
      default -> List.of(table());
    };
  }

  /** Its watermark delay; null for a raw archive. */
  public java.time.Duration watermark() {
    return switch (kind) {
      case RAW -> null;
      case DEDUP -> ((FactFeed) feed).dedupWatermark();
      case AGGREGATE -> aggregate.watermark();
      case SCD2 -> ((DimensionFeed) feed).watermark();
    };
  }

  /** What it is, for people: "the raw archive of events", "the aggregate windowed-counts of events". */
  public String describe() {
    return switch (kind) {
      case RAW -> "the raw archive of " + feed.name();
      case DEDUP -> "the dedup of " + feed.name();
      case AGGREGATE -> "the windowed aggregate " + aggregate.name() + " of " + feed.name();
      case SCD2 -> "the SCD2 dimension of " + feed.name();
    };
  }
}
