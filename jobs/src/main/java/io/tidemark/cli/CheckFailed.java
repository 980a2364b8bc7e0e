package io.tidemark.cli;

import io.tidemark.Finding;
import io.tidemark.TidemarkException;

/** {@code tidemark check} found something wrong: what, and the next step, in one line; the details are above it. */
final class CheckFailed extends TidemarkException implements Finding {
  /** The recipe for a failed check, in the troubleshooting page. */
  static final String RECIPE = "docs/troubleshooting.md#a-failed-check";

  CheckFailed(String message) {
    super(message);
  }
}
