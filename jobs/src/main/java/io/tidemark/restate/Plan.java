package io.tidemark.restate;

import io.tidemark.lakehouse.CommitKeys;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the plan stage froze for one attempt of a run, kept in the properties of its mark commit on the branch:
 * the branch (cut from main when planned), the marks the corrections are computed from (this run's, and the
 * previous published restatement's) and how much there is to correct. Every later stage reads it back from
 * Nessie, so a stage run hours later computes the same corrections.
 *
 * @param hash the plan's mark commit: the branch's content as cut, which the corrections are read from
 */
record Plan(String runId, String branch, int attempt, String hash, Marks previous, Marks now, int windows,
            long events, long changes) {
  static final String RUN_ID = CommitKeys.RUN_ID;
  static final String STAGE = CommitKeys.STAGE;
  static final String BRANCH = CommitKeys.BRANCH;
  private static final String ATTEMPT = CommitKeys.ATTEMPT;
  private static final String WINDOWS = CommitKeys.WINDOWS_PLANNED;
  private static final String EVENTS = CommitKeys.EVENTS_PLANNED;
  private static final String CHANGES = CommitKeys.CHANGES_PLANNED;
  private static final String PREVIOUS = CommitKeys.PREVIOUS;

  boolean nothingToDo() {
    return windows == 0 && events == 0 && changes == 0;
  }

  Plan at(String markHash) {
    return new Plan(runId, branch, attempt, markHash, previous, now, windows, events, changes);
  }

  /** One line for people: what will be corrected. */
  String summary() {
    return nothingToDo() ? "nothing to restate"
        : "planned: " + windows + " window(s), " + events + " event(s), " + changes + " company change(s)";
  }

  Map<String, String> properties() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(RUN_ID, runId);
    m.put(STAGE, "plan");
    m.put(BRANCH, branch);
    m.put(ATTEMPT, Integer.toString(attempt));
    m.put(WINDOWS, Integer.toString(windows));
    m.put(EVENTS, Long.toString(events));
    m.put(CHANGES, Long.toString(changes));
    m.putAll(now.properties());
    previous.properties().forEach((k, v) -> m.put(CommitKeys.previous(k), v));
    return m;
  }

  static Plan of(String hash, Map<String, String> p) {
    Map<String, String> previous = new LinkedHashMap<>();
    p.forEach((k, v) -> {
      if (k.startsWith(PREVIOUS)) {
        previous.put(CommitKeys.PREFIX + k.substring(PREVIOUS.length()), v);
      }
    });
    return new Plan(p.get(RUN_ID), p.get(BRANCH), Integer.parseInt(p.get(ATTEMPT)), hash, Marks.of(previous),
        Marks.of(p), Integer.parseInt(p.get(WINDOWS)), Long.parseLong(p.get(EVENTS)), Long.parseLong(p.get(CHANGES)));
  }
}
