package io.tidemark.lakehouse.nessie;

import io.tidemark.TidemarkException;

/** A branch, merge, tag or mark operation in Nessie failed; the message is one line. */
public class NessieRefException extends TidemarkException {
  public NessieRefException(String message) {
    super(message);
  }
}
