package io.tidemark.lakehouse;

/** A storage operation failed; the message is one line naming the bucket, object and endpoint. */
public class StorageException extends RuntimeException {
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }

  public StorageException(String message) {
    super(message);
  }
}
