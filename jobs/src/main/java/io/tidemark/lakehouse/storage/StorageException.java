package io.tidemark.lakehouse.storage;

import io.tidemark.TidemarkException;

/** A storage operation failed; the message is one line naming the bucket, object and endpoint. */
public class StorageException extends TidemarkException {
  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }

  public StorageException(String message) {
    super(message);
  }
}
