package io.tidemark.lakehouse.spark;

import io.tidemark.core.Fields;
import io.tidemark.core.Schema;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructType;

/**
 * The core's schemas and values in Spark's terms, and Spark's rows as the core reads them: a {@link Schema} as a
 * {@link StructType}, values (times as {@link Instant}s) as rows (times as {@link Timestamp}s), and back.
 */
public final class SparkRows {
  private static final Map<Schema, StructType> STRUCTS = new ConcurrentHashMap<>();

  private SparkRows() {}

  /** The schema as Spark's. */
  public static StructType struct(Schema schema) {
    return STRUCTS.computeIfAbsent(schema, s -> StructType.fromDDL(s.ddl()));
  }

  /** The schema's columns, for a select. */
  public static Column[] columns(Schema schema) {
    return schema.names().stream().map(functions::col).toArray(Column[]::new);
  }

  /** A row read from Spark (with its schema: collected from a Dataset), by column name, times as instants. */
  public static Fields fields(Row row) {
    return name -> {
      int i = row.fieldIndex(name);
      return row.isNullAt(i) ? null : value(row.get(i));
    };
  }

  /** Values in a schema's order (times as instants) as a row Spark takes with that schema. */
  public static Row row(List<Object> values) {
    return RowFactory.create(values.stream().map(SparkRows::spark).toArray());
  }

  public static List<Row> rows(List<List<Object>> values) {
    return values.stream().map(SparkRows::row).toList();
  }

  private static Object value(Object v) {
    if (v instanceof Timestamp t) {
      return t.toInstant();
    }
    if (v instanceof Date d) {
      return d.toLocalDate();
    }
    if (v instanceof scala.collection.Seq<?> seq) {
      return scala.collection.JavaConverters.seqAsJavaList(seq);
    }
    if (v instanceof scala.collection.Map<?, ?> map) {
      return scala.collection.JavaConverters.mapAsJavaMap(map);
    }
    return v;
  }

  /** A value as Spark's literals and rows take it (times as Timestamps, days as Dates). */
  public static Object literal(Object v) {
    return spark(v);
  }

  private static Object spark(Object v) {
    return v instanceof Instant i ? Timestamp.from(i) : v instanceof java.time.LocalDate d ? Date.valueOf(d) : v;
  }

  /** Values of a row of Spark, positionally, times as instants (for a row without a schema). */
  public static List<Object> values(Row row) {
    return Arrays.asList(java.util.stream.IntStream.range(0, row.size())
        .mapToObj(i -> row.isNullAt(i) ? null : value(row.get(i))).toArray());
  }
}
