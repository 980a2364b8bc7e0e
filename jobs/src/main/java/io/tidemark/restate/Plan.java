package io.tidemark.restate;

import io.tidemark.core.CommitKeys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the plan stage froze for one attempt of a run, kept in the properties of its mark commit on the branch:
 * the branch and the commit of the staging branch it was cut from (which the plan read), the marks the corrections
 * were computed from (this run's, and the previous merged restatement's), how much there is to correct, and the
 * snapshot of the restatement plan table that holds the corrections ({@link PlannedCorrections}). Every later stage reads it
 * back from Nessie and applies or checks those corrections, so a stage run hours later does the same.
 *
 * @param hash the plan's mark commit
 * @param correctionsSnapshot the plan table's snapshot with the corrections; empty when there are none
 */
record Plan(String runId, String branch, int attempt, String hash, String base, Optional<Long> correctionsSnapshot,
            Marks previous, Marks now, int windows, long records, long changes) {

  boolean nothingToDo() {
    return windows == 0 && records == 0 && changes == 0;
  }

  Plan at(String markHash) {
    return new Plan(runId, branch, attempt, markHash, base, correctionsSnapshot, previous, now, windows, records,
        changes);
  }

  /** One line for people: what will be corrected. */
  String summary() {
    return nothingToDo() ? "nothing to restate"
        : "planned: " + windows + " window(s), " + records + " record(s), " + changes + " dimension change(s)";
  }

  Map<String, String> properties() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(CommitKeys.RUN_ID, runId);
    m.put(CommitKeys.STAGE, Stage.PLAN.label());
    m.put(CommitKeys.BRANCH, branch);
    m.put(CommitKeys.ATTEMPT, Integer.toString(attempt));
    m.put(CommitKeys.BASE, base);
    correctionsSnapshot.ifPresent(s -> m.put(CommitKeys.PLAN_SNAPSHOT, s.toString()));
    m.put(CommitKeys.WINDOWS_PLANNED, Integer.toString(windows));
    m.put(CommitKeys.RECORDS_PLANNED, Long.toString(records));
    m.put(CommitKeys.CHANGES_PLANNED, Long.toString(changes));
    m.putAll(now.properties());
    previous.properties().forEach((k, v) -> m.put(CommitKeys.previous(k), v));
    return m;
  }

  static Plan of(String hash, Map<String, String> p) {
    Map<String, String> previous = new LinkedHashMap<>();
    p.forEach((k, v) -> {
      if (k.startsWith(CommitKeys.PREVIOUS)) {
        previous.put(CommitKeys.PREFIX + k.substring(CommitKeys.PREVIOUS.length()), v);
      }
    });
    return new Plan(p.get(CommitKeys.RUN_ID), p.get(CommitKeys.BRANCH), Integer.parseInt(p.get(CommitKeys.ATTEMPT)),
        hash, p.get(CommitKeys.BASE), Optional.ofNullable(p.get(CommitKeys.PLAN_SNAPSHOT)).map(Long::parseLong),
        Marks.of(previous), Marks.of(p), Integer.parseInt(p.get(CommitKeys.WINDOWS_PLANNED)),
        Long.parseLong(p.get(CommitKeys.RECORDS_PLANNED)), Long.parseLong(p.get(CommitKeys.CHANGES_PLANNED)));
  }
}
