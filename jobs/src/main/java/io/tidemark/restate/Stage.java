package io.tidemark.restate;

import io.tidemark.config.ConfigException;
import java.util.Locale;

/** The stages of a restatement run, in order; each can run on its own (e.g. as an Airflow task). */
public enum Stage {
  PLAN, WRITE, AUDIT, PUBLISH, TAG;

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
    throw new ConfigException("no restatement stage '" + label + "': plan, write, audit, publish or tag");
  }
}
