package io.tidemark.core;

import java.util.Objects;

/** A column of a feed or a table: its name, written once in a declaration, and its type. */
public record Column(String name, Type type) {
  public Column {
    Objects.requireNonNull(name);
    Objects.requireNonNull(type);
  }

  public static Column of(String name, Type type) {
    return new Column(name, type);
  }

  /** The name: a column goes into SQL and messages as its name. */
  @Override
  public String toString() {
    return name;
  }
}
