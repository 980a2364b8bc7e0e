package io.tidemark.stream;

import io.tidemark.land.Dataset;

/**
 * The streams tidemark runs, in the order {@code stream all} runs them: the raw archives first, so that nothing
 * is lost if a later stream fails. The name is the one a stream's commits carry and its checkpoint's directory.
 */
public enum StreamKind {
  RAW(RawArchive.NAME, Dataset.EVENTS),
  DEDUP(Dedup.NAME, Dataset.EVENTS),
  COUNTS(WindowedCounts.NAME, Dataset.EVENTS),
  RAW_COMPANIES(RawArchive.COMPANIES, Dataset.COMPANIES),
  SCD2(Scd2Upsert.NAME, Dataset.COMPANIES);

  private final String streamName;
  private final Dataset dataset;

  StreamKind(String streamName, Dataset dataset) {
    this.streamName = streamName;
    this.dataset = dataset;
  }

  public String streamName() {
    return streamName;
  }

  /** What the stream reads. */
  public Dataset dataset() {
    return dataset;
  }

  /** The raw archive of a dataset. */
  public static StreamKind raw(Dataset dataset) {
    return dataset == Dataset.EVENTS ? RAW : RAW_COMPANIES;
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
