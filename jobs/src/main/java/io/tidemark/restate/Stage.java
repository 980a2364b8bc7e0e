package io.tidemark.restate;

import io.tidemark.config.ConfigException;
import java.util.Locale;

/** The stages of a restatement run, in order; each can run on its own (e.g. as an Airflow task). */
public enum Stage {
  PLAN, WRITE, AUDIT, MERGE, TAG;

  /**
   * The merge's name until it was renamed for what it does (it merges into the staging branch; `tidemark publish`
   * is what takes the staging branch to main): still accepted on the command line, and found on the merge commits
   * of runs made before.
   */
  public static final String FORMER_MERGE_LABEL = "publish";

  /** As the command line and the Nessie log name it: plan, write, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Stage named(String label) {
    for (Stage s : values()) {
      if (s.label().equals(label)) {
        return s;
      }
    }
    if (FORMER_MERGE_LABEL.equals(label)) {
      return MERGE;
    }
    throw new ConfigException("no restatement stage '" + label + "': plan, write, audit, merge or tag");
  }
}
