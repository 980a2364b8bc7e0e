package io.tidemark.config;

import java.util.Objects;

/** A secret value that never shows itself in toString, so that config dumps and logs stay clean. */
public final class Secret {
  private final String value;

  public Secret(String value) {
    this.value = Objects.requireNonNull(value, "value");
  }

  /** The clear value, for the one place that must hand it to a client. */
  public String reveal() {
    return value;
  }

  @Override
  public String toString() {
    return "****";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s && s.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }
}
