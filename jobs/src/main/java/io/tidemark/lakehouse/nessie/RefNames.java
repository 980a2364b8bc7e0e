package io.tidemark.lakehouse.nessie;

/**
 * The names of the references tidemark makes besides the staging and published branches, in one place: the jobs that
 * make them and maintenance, which deletes them when they are no longer needed, read them from here.
 */
public final class RefNames {
  /** A restatement run's working branch: {@code <prefix>restate-<run id>} (attempt n > 1: {@code ...-n}). */
  public static final String RESTATE = "restate-";
  /** A published restatement's tag at its merge commit: {@code <prefix>restated-<run id>}. */
  public static final String RESTATED = "restated-";
  /** The tag a staged commit that failed its checks keeps: {@code rejected-<hash>}. */
  public static final String REJECTED = "rejected-";

  private RefNames() {}

  /** The branch of attempt {@code attempt} of a restatement run. */
  public static String restateBranch(String prefix, String runId, int attempt) {
    return prefix + RESTATE + runId + (attempt > 1 ? "-" + attempt : "");
  }

  /** The tag of a published restatement run. */
  public static String restatedTag(String prefix, String runId) {
    return prefix + RESTATED + runId;
  }

  /** The tag of a staged commit a publish refused. */
  public static String rejectedTag(String shortHash) {
    return REJECTED + shortHash;
  }
}
