package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;

/**
 * What lands of one feed, declared once: its columns and their types (a landed line is valid when it is a JSON object
 * whose required fields are there and convert to their types), the key that identifies one of its records, and the
 * column that holds its event time (what watermarks are on). Every table that keeps the feed's records takes these
 * columns from here ({@link TableSchemas}).
 *
 * <p>The pipeline file's declaration ({@code io.tidemark.pipeline.PipelineFile}) is where a feed starts; a field
 * promoted by {@code tidemark evolve} is a column of the feed's raw archive in the catalog, and the feed as the jobs
 * run it is the file's declaration plus those columns ({@link #declaredBy}): the catalog, versioned by Nessie, is the
 * record, so a tag made before a promotion reads the feed as it was.
 *
 * @param name the feed's name in the landing zone and in messages
 * @param columns the fields of a landed line, in order
 * @param key what identifies a record (one column or more): a fact's id, the thing a dimension's change is of
 * @param eventTime the event time
 * @param required the fields a valid line must have (the key and the event time among them)
 */
public record FeedSchema(String name, Schema columns, List<Column> key, Column eventTime, List<Column> required) {
  public FeedSchema {
    key = List.copyOf(key);
    required = List.copyOf(required);
    if (key.isEmpty()) {
      throw new IllegalArgumentException(name + ": a feed needs a key of one column or more");
    }
    List<Column> keyAndTime = new ArrayList<>(key);
    keyAndTime.add(eventTime);
    for (Column c : keyAndTime) {
      if (!columns.has(c) || !required.contains(c)) {
        throw new IllegalArgumentException(name + ": " + c + " must be a required column of the feed");
      }
    }
    if (!eventTime.type().equals(Type.TIMESTAMP)) {
      throw new IllegalArgumentException(name + ": the event time " + eventTime + " must be a TIMESTAMP");
    }
  }

  /** A feed keyed on one column. */
  public FeedSchema(String name, Schema columns, Column key, Column eventTime, List<Column> required) {
    this(name, columns, List.of(key), eventTime, required);
  }

  /** The key's values of a row, in the key's order. */
  public List<Object> keyOf(Fields row) {
    return row.values(key);
  }

  /** The key's column names, comma separated, for SQL. */
  public String keyList() {
    return String.join(", ", key.stream().map(Column::name).toList());
  }

  public boolean isRequired(Column c) {
    return required.contains(c);
  }

  /** The fields that are not required, in order: a value of one that does not convert is rescued, not rejected. */
  public List<Column> optional() {
    return columns.columns().stream().filter(c -> !required.contains(c)).toList();
  }

  /** Whether the feed declares a field of that name. */
  public boolean declares(String field) {
    return columns.names().contains(field);
  }

  /** The feed with one more optional field (a promoted one), or with a field of that name given a wider type. */
  public FeedSchema with(Column field) {
    List<Column> out = new ArrayList<>(columns.columns());
    int at = out.stream().map(Column::name).toList().indexOf(field.name());
    if (at < 0) {
      out.add(field);
    } else if (required.contains(out.get(at))) {
      throw new IllegalArgumentException(name + ": " + field.name() + " is required; its type stays");
    } else {
      out.set(at, field);
    }
    return new FeedSchema(name, new Schema(out), key, eventTime, required);
  }

  /**
   * The feed as its raw archive's columns declare it: these fields (with their declared types), then every column of
   * the archive that is neither one of them nor the archive's own ({@link Ingest}, {@link Rescued}), in the archive's
   * order and with its type (a promoted field widened in place has its wider type): the fields promoted into the
   * feed. A declared field keeps its declared type.
   */
  public FeedSchema declaredBy(Schema archive) {
    FeedSchema out = this;
    for (Column c : archive.columns()) {
      boolean own = Ingest.SCHEMA.names().contains(c.name()) || c.name().equals(Rescued.DATA.name());
      if (own) {
        continue;
      }
      if (!declares(c.name())) {
        out = out.with(c);
      }
    }
    return out;
  }

  /** The fields beyond those of {@code base} (the static declaration): what was promoted. */
  public List<Column> beyond(FeedSchema base) {
    return columns.columns().stream().filter(c -> !base.declares(c.name())).toList();
  }
}
