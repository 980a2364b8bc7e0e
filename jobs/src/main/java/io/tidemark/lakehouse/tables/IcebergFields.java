package io.tidemark.lakehouse.tables;

import io.tidemark.core.Fields;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.iceberg.data.Record;

/** A record Iceberg's generic readers return, as the core reads rows: by column name, times as instants. */
public final class IcebergFields {
  private IcebergFields() {}

  public static Fields of(Record record) {
    return name -> value(record.getField(name));
  }

  /** A value as a record holds it, times as instants (UTC for a timestamp without a zone). */
  public static Object value(Object v) {
    if (v instanceof OffsetDateTime t) {
      return t.toInstant();
    }
    if (v instanceof LocalDateTime t) {
      return t.toInstant(ZoneOffset.UTC);
    }
    return v;
  }

  /** A time as a record holds it, as an instant. */
  public static Instant instant(Object v) {
    return (Instant) value(v);
  }
}
