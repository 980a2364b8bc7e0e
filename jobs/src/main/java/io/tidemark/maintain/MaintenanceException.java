package io.tidemark.maintain;

import io.tidemark.TidemarkException;

/** A maintenance job that could not do its work safely; nothing was deleted past the point it names. */
public class MaintenanceException extends TidemarkException {
  public MaintenanceException(String message) {
    super(message);
  }

  public MaintenanceException(String message, Throwable cause) {
    super(message, cause);
  }
}
