package io.tidemark.evolve;

import io.tidemark.TidemarkException;

/** Why {@code tidemark evolve} did not promote: one line. */
public final class EvolveException extends TidemarkException {
  public EvolveException(String message) {
    super(message);
  }
}
