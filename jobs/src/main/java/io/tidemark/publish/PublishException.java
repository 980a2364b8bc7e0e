package io.tidemark.publish;

import io.tidemark.TidemarkException;

/** A branch, merge or tag operation failed; the message is one line. */
public class PublishException extends TidemarkException {
  public PublishException(String message) {
    super(message);
  }
}
