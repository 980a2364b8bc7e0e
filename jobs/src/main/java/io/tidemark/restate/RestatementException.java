package io.tidemark.restate;

import io.tidemark.TidemarkException;

/** A restatement could not merge; the message says which check failed and where to look. */
public class RestatementException extends TidemarkException {
  public RestatementException(String message) {
    super(message);
  }
}
