package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;

/**
 * One check an arrival passes before it is published ({@link ArrivalChecks} runs them all). It looks only at what the
 * staged commits changed (the rows they appended, the keys they touched, the files they read), so its cost follows
 * the arrival, not the history; it passes when what it looks at was not staged.
 */
interface ArrivalCheck {
  /** The check's name, as the publish commit lists it and a refusal names it. */
  String name();

  AuditCheck run(Staged staged, CheckReads reads);
}
