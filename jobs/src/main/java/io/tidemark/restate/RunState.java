package io.tidemark.restate;

import java.util.Optional;
import org.projectnessie.model.Branch;

/**
 * Where a run stands, as Nessie records it: its current branch (the newest attempt) and the marks on it, the
 * merge commit on the staging branch that carries its run id, its tag. Nothing else holds a run's state.
 *
 * @param branch the run's newest branch, when there is one
 * @param plan what the plan stage recorded on that branch
 * @param written the write stage's mark on it
 * @param audit the newest audit mark on it
 * @param merged the hash of the run's merge commit on the staging branch
 * @param tagged the hash the run's tag points at
 */
record RunState(Optional<Branch> branch, Optional<Plan> plan, Optional<String> written, Optional<AuditMark> audit,
                Optional<String> merged, Optional<String> tagged) {

  /** An audit's verdict, recorded on the branch in the properties of the commit at {@code hash}. */
  record AuditMark(String hash, boolean passed, int checks, String failure) {}

  boolean unknown() {
    return branch.isEmpty() && merged.isEmpty() && tagged.isEmpty();
  }

  /** The newest audit passed and nothing was committed to the branch after it. */
  boolean auditPassedAtHead() {
    return audit.isPresent() && audit.get().passed() && branch.isPresent()
        && branch.get().getHash().equals(audit.get().hash());
  }
}
