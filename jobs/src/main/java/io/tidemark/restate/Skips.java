package io.tidemark.restate;

import java.util.Optional;

/** The answer of a stage after the plan that has nothing to do: merged already, not planned, nothing to restate. */
final class Skips {
  private Skips() {}

  /** {@code runs}: the ids of the runs Nessie has, asked only when this one has left nothing there. */
  static Optional<StageResult> before(Stage stage, RunState s, String runId,
                                      java.util.function.Supplier<java.util.List<String>> runs) {
    if (s.merged().isPresent()) {
      return Optional.of(StageResult.already(stage, runId, "merged as " + s.merged().get()));
    }
    if (s.plan().isEmpty() && s.branch().isEmpty() && s.tagged().isEmpty()) {
      // a mistyped id more often than a run whose branch is gone: say so, not "plan it first"
      return Optional.of(StageResult.noSuchRun(stage, runId, runs.get()));
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
