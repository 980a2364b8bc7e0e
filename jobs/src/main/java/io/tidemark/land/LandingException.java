package io.tidemark.land;

/** Landing refused, e.g. an arrival that already holds other content; the message says what to do. */
public class LandingException extends RuntimeException {
  public LandingException(String message) {
    super(message);
  }
}
