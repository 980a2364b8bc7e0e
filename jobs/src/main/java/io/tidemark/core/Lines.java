package io.tidemark.core;

/**
 * Lines of a landed file, and the rule the raw streams keep: every line landed is archived (a valid one) or
 * quarantined (any other), none twice, none lost.
 */
public final class Lines {
  private Lines() {}

  /** The lines in a file's content, as {@link LineReader} reads them. */
  public static long count(byte[] content) {
    return LineReader.count(content);
  }

  /** The lines of some landed files, and the rows the raw archive and the quarantine hold for them. */
  public record Account(long landed, long archived, long quarantined) {
    /** Every line landed is in the archive or the quarantine. */
    public boolean balanced() {
      return archived + quarantined == landed;
    }

    public long accounted() {
      return archived + quarantined;
    }
  }
}
