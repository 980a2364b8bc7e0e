package io.tidemark.services;

import io.tidemark.TidemarkException;

/**
 * A service cannot be started or reached. The message is one line naming the URL, port or file to look at;
 * the command line prints it without a stack trace.
 */
public class ServiceException extends TidemarkException {
  public ServiceException(String message) {
    super(message);
  }

  public ServiceException(String message, Throwable cause) {
    super(message, cause);
  }
}
