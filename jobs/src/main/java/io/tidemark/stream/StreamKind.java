package io.tidemark.stream;

import io.tidemark.core.Feed;

/**
 * The streams tidemark runs, in the order {@code stream all} runs them: the raw archives first, so that nothing
 * is lost if a later stream fails. The name is the one a stream's commits carry and its checkpoint's directory.
 */
public enum StreamKind {
  RAW(RawArchive.NAME, Feed.EVENTS),
  DEDUP(Dedup.NAME, Feed.EVENTS),
  COUNTS(WindowedCounts.NAME, Feed.EVENTS),
  RAW_COMPANIES(RawArchive.COMPANIES, Feed.COMPANIES),
  SCD2(Scd2Upsert.NAME, Feed.COMPANIES);

  private final String streamName;
  private final Feed dataset;

  StreamKind(String streamName, Feed dataset) {
    this.streamName = streamName;
    this.dataset = dataset;
  }

  public String streamName() {
    return streamName;
  }

  /** What the stream reads. */
  public Feed dataset() {
    return dataset;
  }

  /** The raw archive of a dataset. */
  public static StreamKind raw(Feed dataset) {
    return dataset == Feed.EVENTS ? RAW : RAW_COMPANIES;
  }

  public static StreamKind named(String name) {
    for (StreamKind k : values()) {
      if (k.streamName.equals(name)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown stream '" + name + "'");
  }
}
