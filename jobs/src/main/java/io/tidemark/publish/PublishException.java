package io.tidemark.publish;

import io.tidemark.TidemarkException;

/** A publish that did not happen: a failed check or a conflict, said in one line with where to look. */
public final class PublishException extends TidemarkException {
  public PublishException(String message) {
    super(message);
  }
}
