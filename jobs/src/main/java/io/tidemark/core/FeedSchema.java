package io.tidemark.core;

import java.util.List;

/**
 * What lands of one feed, declared once: its columns and their types (a landed line is valid when its fields convert
 * to them and the required ones are there), the key that identifies one of its records, and the column that holds
 * its event time (what watermarks are on). Every table that keeps the feed's records takes these columns from here
 * ({@link TableSchemas}), so a column added to a feed's declaration (a field promoted from what lines carried beyond
 * the schema) reaches its raw archive and its derived tables, where {@code tidemark bootstrap} adds it.
 *
 * @param name the feed's name in the landing zone and in messages
 * @param columns the fields of a landed line, in order
 * @param key what identifies a record: the event id, the company a change is of
 * @param eventTime the event time
 * @param required the fields a valid line must have
 */
public record FeedSchema(String name, Schema columns, Column key, Column eventTime, List<Column> required) {
  public FeedSchema {
    required = List.copyOf(required);
    for (Column c : List.of(key, eventTime)) {
      if (!columns.has(c) || !required.contains(c)) {
        throw new IllegalArgumentException(name + ": " + c + " must be a required column of the feed");
      }
    }
    if (eventTime.type() != Type.TIMESTAMP) {
      throw new IllegalArgumentException(name + ": the event time " + eventTime + " must be a TIMESTAMP");
    }
  }

  public boolean isRequired(Column c) {
    return required.contains(c);
  }
}
