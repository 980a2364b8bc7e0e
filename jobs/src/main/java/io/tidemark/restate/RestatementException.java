package io.tidemark.restate;

/** A restatement could not publish; the message says which check failed and where to look. */
public class RestatementException extends RuntimeException {
  public RestatementException(String message) {
    super(message);
  }
}
