package io.tidemark.restate;

import java.util.Optional;

/** The answer of a stage after the plan that has nothing to do: merged already, not planned, nothing to restate. */
final class Skips {
  private Skips() {}

  static Optional<StageResult> before(Stage stage, RunState s, String runId) {
    if (s.merged().isPresent()) {
      return Optional.of(StageResult.already(stage, runId, "merged as " + s.merged().get()));
    }
    if (s.plan().isEmpty()) {
      return Optional.of(StageResult.missing(stage, runId, Stage.PLAN));
    }
    if (s.plan().get().nothingToDo()) {
      return Optional.of(StageResult.nothingToRestate(stage, runId));
    }
    return Optional.empty();
  }
}
