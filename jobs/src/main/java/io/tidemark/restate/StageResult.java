package io.tidemark.restate;

import io.tidemark.lakehouse.nessie.RefNames;
import java.util.List;

/** What one stage did, for people: its lines, and the one-line reason when it failed. */
public record StageResult(Stage stage, Outcome outcome, List<String> lines, String failure) {
  public enum Outcome { DONE, ALREADY_DONE, NOTHING_TO_RESTATE, FAILED }

  public boolean failed() {
    return outcome == Outcome.FAILED;
  }

  static StageResult done(Stage stage, List<String> lines) {
    return new StageResult(stage, Outcome.DONE, List.copyOf(lines), null);
  }

  static StageResult done(Stage stage, String... lines) {
    return done(stage, List.of(lines));
  }

  static StageResult failed(Stage stage, List<String> lines, String failure) {
    return new StageResult(stage, Outcome.FAILED, List.copyOf(lines), failure);
  }

  static StageResult already(Stage stage, String runId, String what) {
    return new StageResult(stage, Outcome.ALREADY_DONE,
        List.of(stage.label() + ": already done for run " + runId + " (" + what + ")"), null);
  }

  static StageResult nothingToRestate(Stage stage, String runId) {
    return new StageResult(stage, Outcome.NOTHING_TO_RESTATE, List.of("nothing to restate for run " + runId), null);
  }

  /** Run before the stage it needs: fails naming the command to run first. */
  /** A stage of a run Nessie has nothing of: no branch, no tag, no merge. */
  static StageResult noSuchRun(Stage stage, String runId, java.util.List<String> runs) {
    return failed(stage, List.of(), "no restatement run " + runId + " in Nessie (no branch " + RefNames.RESTATE + runId
        + ", no tag " + RefNames.RESTATED + runId + "): " + (runs.isEmpty() ? "there is none"
        : "the runs there are " + String.join(", ", runs.subList(0, Math.min(10, runs.size())))
            + (runs.size() > 10 ? " and " + (runs.size() - 10) + " more" : "")) + "; a new run starts with "
        + "`tidemark restate plan --run-id " + runId + "` (or `tidemark restate` for all stages)");
  }

  static StageResult missing(Stage stage, String runId, Stage first) {
    return failed(stage, List.of(), stage.label() + " of run " + runId + " needs its " + first.label()
        + " first: run `tidemark restate " + first.label() + " --run-id " + runId + "`");
  }
}
