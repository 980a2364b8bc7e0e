package io.tidemark.stream;

import io.tidemark.TidemarkException;

/** A stream cannot start (bad source, missing table, wrong schema) or failed; the message is one line. */
public class StreamException extends TidemarkException {
  public StreamException(String message) {
    super(message);
  }

  public StreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
