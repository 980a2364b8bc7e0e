package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A dimension feed as its SCD2 rules read it: the feed of changes (its key is the dimension's, its event time the
 * change time), the attributes whose changes make a new version (tracked), and what marks a delete. The dimension
 * keeps, per key and stretch of time in one state, a version ({@link #version}); its change log keeps every change
 * applied once ({@link #logged}): the key, the change time, the marker and the tracked attributes. A feed column that
 * is none of those is kept in the raw archive only.
 *
 * @param feed the changes as they land
 * @param attributes the tracked attributes, columns of the feed
 * @param delete what marks a delete; null when the feed has none
 */
public record DimensionSchema(FeedSchema feed, List<Column> attributes, DeleteMarker delete) {
  /** When a version starts: the change time that set its state. */
  public static final Column VALID_FROM = Column.of("valid_from", Type.TIMESTAMP);
  /** When it ends (the next change, or a delete); null for the open version. */
  public static final Column VALID_TO = Column.of("valid_to", Type.TIMESTAMP);
  public static final Column IS_CURRENT = Column.of("is_current", Type.BOOLEAN);

  public DimensionSchema {
    attributes = List.copyOf(attributes);
    for (Column a : attributes) {
      if (!feed.columns().has(a)) {
        throw new IllegalArgumentException(feed.name() + ": the attribute " + a + " is not a column of the feed");
      }
      if (feed.key().contains(a) || a.equals(feed.eventTime()) || delete != null && a.equals(delete.column())) {
        throw new IllegalArgumentException(feed.name() + ": " + a + " is the key, the change time or the delete "
            + "marker, not an attribute");
      }
    }
    if (delete != null && !feed.columns().has(delete.column())) {
      throw new IllegalArgumentException(feed.name() + ": the delete marker " + delete.column()
          + " is not a column of the feed");
    }
    if (delete != null && feed.key().contains(delete.column())) {
      throw new IllegalArgumentException(feed.name() + ": the delete marker " + delete.column() + " is a key column");
    }
  }

  public String name() {
    return feed.name();
  }

  public List<Column> key() {
    return feed.key();
  }

  public Column changeTime() {
    return feed.eventTime();
  }

  /** The change log's columns: the key, the change time, the marker and the tracked attributes, in the feed's order. */
  public Schema logged() {
    List<Column> out = new ArrayList<>();
    for (Column c : feed.columns().columns()) {
      if (feed.key().contains(c) || c.equals(changeTime()) || attributes.contains(c)
          || delete != null && c.equals(delete.column())) {
        out.add(c);
      }
    }
    return new Schema(out);
  }

  /** A version's columns: the key, the attributes, valid from, valid to, current. */
  public Schema version() {
    return new Schema(feed.key()).plus(attributes).plus(VALID_FROM, VALID_TO, IS_CURRENT);
  }

  /** A change from a row of the feed's (or the log's) columns, normalized. */
  public Change change(Fields row) {
    boolean deleted = delete != null && delete.isDelete(row.get(delete.column()));
    return new Change(row.values(feed.key()), row.instant(changeTime()), deleted, row.values(attributes));
  }

  /** A change's row of the change log, in the order of {@link #logged}. */
  public List<Object> logRow(Change c) {
    List<Object> out = new ArrayList<>();
    for (Column col : logged().columns()) {
      int k = feed.key().indexOf(col);
      int a = attributes.indexOf(col);
      if (k >= 0) {
        out.add(c.key().get(k));
      } else if (col.equals(changeTime())) {
        out.add(c.at());
      } else if (a >= 0) {
        out.add(c.attributes().get(a));
      } else {
        out.add(delete.logged(c.deleted()));
      }
    }
    return out;
  }

  /** A version from a row of the dimension. */
  public Version versionOf(Fields row) {
    return new Version(row.values(feed.key()), row.values(attributes), row.instant(VALID_FROM),
        row.instant(VALID_TO), row.bool(IS_CURRENT));
  }

  /** A version's state as a change at its start. */
  public Change asChange(Version v) {
    return Change.set(v.key(), v.validFrom(), v.attributes());
  }

  /**
   * The dimension with a field promoted into the feed (or a promoted field widened): a promoted field of a dimension
   * is a tracked attribute, a change of which makes a new version.
   */
  public DimensionSchema with(Column field) {
    FeedSchema f = feed.with(field);
    List<Column> a = new ArrayList<>();
    for (Column c : attributes) {
      a.add(c.name().equals(field.name()) ? field : c);
    }
    if (!feed.declares(field.name())) {
      a.add(field);
    }
    return new DimensionSchema(f, a, delete);
  }

  /** The dimension without a field of its feed (and without tracking it): what it was before the field came. */
  public DimensionSchema without(Column field) {
    List<Column> columns = new ArrayList<>(feed.columns().columns());
    columns.removeIf(c -> c.name().equals(field.name()));
    List<Column> required = new ArrayList<>(feed.required());
    required.removeIf(c -> c.name().equals(field.name()));
    List<Column> a = new ArrayList<>(attributes);
    a.removeIf(c -> c.name().equals(field.name()));
    return new DimensionSchema(new FeedSchema(feed.name(), new Schema(columns), feed.key(), feed.eventTime(),
        required), a, delete);
  }

  /** The dimension as its raw archive's columns declare it: every field promoted into the feed tracked. */
  public DimensionSchema declaredBy(Schema archive) {
    DimensionSchema out = this;
    for (Column c : feed.declaredBy(archive).beyond(feed)) {
      out = out.with(c);
    }
    return out;
  }

  /** The attributes promoted beyond {@code base}'s. */
  public List<Column> promotedBeyond(DimensionSchema base) {
    return attributes.stream().filter(c -> !base.feed().declares(c.name())).toList();
  }
}
