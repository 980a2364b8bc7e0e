package io.tidemark.core;

import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * A key column's value as one text, whether it was read from a landed line or from a table: so that a correction
 * (a kept row of a later arrival) is recognised for the line it corrects although the two were written differently
 * ({@code 12.5} and {@code 12.50} of a {@code decimal(10,2)}; {@code 2026-01-01T05:00:00.000Z} and Iceberg's
 * {@code OffsetDateTime} of a timestamp).
 */
public final class KeyText {
  private KeyText() {}

  /**
   * The text of a value as a landed line gives it; a text the type does not read (the line's own form, which the
   * streams may read otherwise) is kept as it is.
   */
  public static String ofLine(Type type, String text) {
    if (text == null) {
      return null;
    }
    try {
      return type.text(type.valueOf(text));
    } catch (RuntimeException notOfTheType) {
      return text;
    }
  }

  /** The text of a value as a table's row holds it (Iceberg's generic values). */
  public static String ofTable(Type type, Object value) {
    if (value == null) {
      return null;
    }
    Object v = value;
    if (value instanceof OffsetDateTime t) {
      v = t.toInstant();
    } else if (value instanceof LocalDateTime t) {
      v = t.toInstant(ZoneOffset.UTC);
    }
    return type.text(v);
  }
}
