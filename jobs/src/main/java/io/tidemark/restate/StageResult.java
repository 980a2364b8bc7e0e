package io.tidemark.restate;

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
  static StageResult missing(Stage stage, String runId, Stage first) {
    return failed(stage, List.of(), stage.label() + " of run " + runId + " needs its " + first.label()
        + " first: run `tidemark restate " + first.label() + " --run-id " + runId + "`");
  }
}
