package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;

/**
 * One check an arrival passes before it is published ({@link ArrivalChecks} runs them all). It looks only at what the
 * staged commits changed (the rows they appended, the keys they touched, the files they read), so its cost follows
 * the arrival, not the history; it passes when what it looks at was not staged.
 */
abstract class ArrivalCheck {
  private final String name;

  /** {@code name}: as the publish commit lists the check and a refusal names it. */
  ArrivalCheck(String name) {
    this.name = name;
  }

  final String name() {
    return name;
  }

  abstract AuditCheck run(Staged staged, CheckReads reads);
}
