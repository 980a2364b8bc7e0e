package io.tidemark.land;

import io.tidemark.TidemarkException;

/** Landing refused, e.g. an arrival that already holds other content; the message says what to do. */
public class LandingException extends TidemarkException {
  public LandingException(String message) {
    super(message);
  }
}
