package io.tidemark.publish;

/** A branch, merge or tag operation failed; the message is one line. */
public class PublishException extends RuntimeException {
  public PublishException(String message) {
    super(message);
  }
}
