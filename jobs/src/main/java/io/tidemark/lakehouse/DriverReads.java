package io.tidemark.lakehouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.StructType;

/**
 * Reads rows of an Iceberg table on the driver, through Iceberg's own readers (scan planning prunes partitions and
 * files by their column metrics, delete files are applied), without a Spark job: for the few rows a restatement of
 * a few late events touches, a Spark job is mostly fixed cost (planning, code generation, task scheduling). A read
 * stops with {@link TooManyRows} past its budget, so a caller can hand large inputs to Spark instead.
 */
public final class DriverReads {
  private DriverReads() {}

  /** More rows than the read's budget: the caller should use Spark. */
  public static final class TooManyRows extends RuntimeException {
    public TooManyRows(String table, long budget) {
      super(table + ": more than " + budget + " rows to read on the driver");
    }
  }

  /** A row's place in a data file: what a position delete names. */
  public static final String FILE = MetadataColumns.FILE_PATH.name();
  public static final String POS = MetadataColumns.ROW_POSITION.name();

  /**
   * The rows of {@code columns} at {@code snapshot} (the table's current one when null) matching {@code filter};
   * with {@code positions}, each record also holds its {@link #FILE} and {@link #POS}.
   */
  public static List<Record> read(Table table, Long snapshot, Expression filter, List<String> columns,
                                  boolean positions, long budget) {
    if (snapshot == null && table.currentSnapshot() == null) {
      return List.of();
    }
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table).where(filter)
        .project(projection(table.schema(), columns, filter, positions));
    if (snapshot != null) {
      scan = scan.useSnapshot(snapshot);
    }
    return collect(scan.build(), table, budget);
  }

  /** The rows appended after snapshot {@code from} (exclusive) up to {@code to} (inclusive), as the table grew. */
  public static List<Record> appended(Table table, long from, long to, Expression filter, List<String> columns,
                                      long budget) {
    return collect(IcebergGenerics.read(table).appendsBetween(from, to).where(filter)
        .project(projection(table.schema(), columns, filter, false)).build(), table, budget);
  }

  /** The columns asked for, and those the filter reads: Iceberg's reader filters the projected rows. */
  private static Schema projection(Schema schema, List<String> columns, Expression filter, boolean positions) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (String c : columns) {
      fields.add(Optional.ofNullable(schema.findField(c))
          .orElseThrow(() -> new IllegalArgumentException("no column " + c + " in " + schema)));
    }
    for (int id : Binder.boundReferences(schema.asStruct(), List.of(filter), true)) {
      Types.NestedField f = schema.findField(id);
      if (fields.stream().noneMatch(x -> x.fieldId() == id)) {
        fields.add(f);
      }
    }
    if (positions) {
      fields.addAll(List.of(MetadataColumns.FILE_PATH, MetadataColumns.ROW_POSITION));
    }
    return new Schema(fields);
  }

  private static List<Record> collect(CloseableIterable<Record> rows, Table table, long budget) {
    List<Record> out = new ArrayList<>();
    try (rows) {
      for (Record r : rows) {
        if (out.size() >= budget) {
          throw new TooManyRows(table.name(), budget);
        }
        out.add(r.copy());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + table.name(), e);
    }
    return out;
  }

  /**
   * The data files of {@code paths} as the snapshot lists them (their partition and spec), for position deletes
   * of their rows: planned with the same filter the rows were read with.
   */
  public static Map<String, DataFile> dataFiles(Table table, long snapshot, Expression filter,
                                                java.util.Collection<String> paths) {
    Map<String, DataFile> out = new HashMap<>();
    if (paths.isEmpty()) {
      return out;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot).filter(filter).planFiles()) {
      for (FileScanTask t : tasks) {
        if (paths.contains(t.file().location())) {
          out.put(t.file().location(), t.file());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan " + table.name(), e);
    }
    return out;
  }

  /**
   * A record read here as a Spark row of {@code fields} (each field by name), in Spark's Java types: what the
   * code that also works on Spark's output compares and writes.
   */
  public static Row toRow(Record r, StructType fields) {
    Object[] values = new Object[fields.size()];
    for (int i = 0; i < values.length; i++) {
      Object v = r.getField(fields.fields()[i].name());
      values[i] = v instanceof OffsetDateTime t ? Timestamp.from(t.toInstant())
          : v instanceof LocalDateTime t ? Timestamp.from(t.toInstant(ZoneOffset.UTC))
          : v instanceof LocalDate d ? Date.valueOf(d) : v;
    }
    return new GenericRowWithSchema(values, fields);
  }

  /**
   * How many rows the data files appended after snapshot {@code from} (exclusive; null: from the start) up to
   * {@code to} hold, from the table's metadata alone: what a read of them would go through.
   */
  public static long rowsAppended(Table table, Long from, long to) {
    var scan = table.newIncrementalAppendScan().toSnapshot(to);
    if (from != null) {
      scan = scan.fromSnapshotExclusive(from);
    }
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      long n = 0;
      for (FileScanTask t : tasks) {
        n += t.file().recordCount();
      }
      return n;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan " + table.name(), e);
    }
  }
}
