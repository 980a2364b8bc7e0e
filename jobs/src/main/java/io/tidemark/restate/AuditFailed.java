package io.tidemark.restate;

import io.tidemark.Finding;

/** A restatement whose audit failed: its line names the check, where to look and the recipe that releases it. */
public final class AuditFailed extends RestatementException implements Finding {
  public AuditFailed(String message) {
    super(message);
  }
}
