package io.tidemark.lakehouse.tables;

import io.tidemark.core.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writes rows the driver already holds into an Iceberg table through Iceberg's own writers (Parquet data files,
 * position delete files) and commits them in one snapshot, without a Spark job. For the few rows of a small
 * arrival, a Spark write is mostly fixed cost: planning the write, serializing tasks, the job; a MERGE adds a join
 * over the whole target. Each commit carries the summary properties it is given, as a Spark write does.
 */
public final class DriverWrites {
  private DriverWrites() {}

  /** A row of a data file: the file and the row's position in it (Iceberg's {@code _file} and {@code _pos}). */
  public record Position(String file, long pos) {}

  /**
   * Appends {@code rows} as one commit; {@code fields} names their values (at least every column of the table),
   * times as instants. Nothing is committed for no rows.
   */
  public static void append(Table table, Schema fields, List<List<Object>> rows, Map<String, String> summary) {
    Appender appender = new Appender(table, fields);
    appender.add(rows);
    appender.commit(summary);
  }

  /**
   * An append whose rows come in parts and are committed once: each part goes into the data files as it comes (one
   * file per partition, kept open), so that when the parts come from runs ending at different times, all that is
   * left after the last one is closing the files and the commit.
   */
  public static final class Appender {
    private final Table table;
    private final Schema fields;
    private final org.apache.iceberg.Schema schema;
    private final PartitionSpec spec;
    private final PartitionKey key;
    // partition transforms work on Iceberg's internal values (micros for timestamps), records hold Java times
    private final InternalRecordWrapper internal;
    private final FanoutDataWriter<Record> writer;
    private long rows;
    private boolean closed;

    public Appender(Table table, Schema fields) {
      this.table = table;
      this.fields = fields;
      this.schema = table.schema();
      this.spec = table.spec();
      this.key = new PartitionKey(spec, schema);
      this.internal = new InternalRecordWrapper(schema.asStruct());
      long target = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
          TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
      this.writer = new FanoutDataWriter<>(writers(table), files(table), table.io(), target);
    }

    public Table table() {
      return table;
    }

    /** Writes the rows into the data files. */
    public synchronized void add(List<List<Object>> part) {
      if (closed) {
        throw new IllegalStateException("rows added to " + table.name() + " after its data files were closed");
      }
      for (List<Object> row : part) {
        Record record = record(schema, fields, row);
        key.partition(internal.wrap(record));
        writer.write(record, spec, key.copy());
        rows++;
      }
    }

    /** Closes the data files; the files written (none for no rows). */
    synchronized List<DataFile> close() {
      if (!closed) {
        closed = true;
        try {
          writer.close();
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write data files of " + table.name(), e);
        }
      }
      return rows == 0 ? List.of() : writer.result().dataFiles();
    }

    /** Closes the data files and commits them in one snapshot with the summary; nothing for no rows. */
    public void commit(Map<String, String> summary) {
      List<DataFile> files = close();
      if (files.isEmpty()) {
        return;
      }
      AppendFiles append = table.newAppend();
      files.forEach(append::appendFile);
      summary.forEach(append::set);
      append.commit();
    }
  }

  /**
   * Replaces rows of an unpartitioned table in one commit: {@code removed} (positions read at snapshot
   * {@code readSnapshot}, or null for a table that had none) are deleted, {@code added} appended. The commit
   * fails, as a MERGE's would, when a snapshot since then removed a referenced file or added rows or deletes that
   * match {@code conflictFilter}.
   */
  public static void replace(Table table, Long readSnapshot, List<Position> removed, Schema fields,
                             List<List<Object>> added, Expression conflictFilter, Map<String, String> summary) {
    if (!table.spec().isUnpartitioned()) {
      throw new IllegalArgumentException(table.name() + " is partitioned: name the data files of the positions");
    }
    replace(table, readSnapshot, removed, Map.of(), fields, added, conflictFilter, summary);
  }

  /**
   * The same for any table: {@code files} holds the data file of every removed position (as the snapshot read lists
   * it, see {@link DriverReads#dataFiles}), whose partition its position deletes go into.
   */
  public static void replace(Table table, Long readSnapshot, List<Position> removed, Map<String, DataFile> files,
                             Schema fields, List<List<Object>> added, Expression conflictFilter,
                             Map<String, String> summary) {
    if (removed.isEmpty() && added.isEmpty()) {
      return;
    }
    RowDelta delta = table.newRowDelta();
    if (!added.isEmpty()) {
      dataFiles(table, fields, added).forEach(delta::addRows);
    }
    if (!removed.isEmpty()) {
      positionDeletes(table, removed, files).forEach(delta::addDeletes);
      delta.validateDataFilesExist(removed.stream().map(Position::file).distinct().toList());
    }
    if (readSnapshot != null) {
      delta.validateFromSnapshot(readSnapshot);
    }
    delta.conflictDetectionFilter(conflictFilter)
        .validateDeletedFiles()
        .validateNoConflictingDataFiles()
        .validateNoConflictingDeleteFiles();
    summary.forEach(delta::set);
    delta.commit();
  }

  private static GenericFileWriterFactory writers(Table table) {
    return new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
        .deleteFileFormat(FileFormat.PARQUET).build();
  }

  private static OutputFileFactory files(Table table) {
    return OutputFileFactory.builderFor(table, 0, 0).format(FileFormat.PARQUET)
        .operationId("tidemark-" + UUID.randomUUID()).build();
  }

  /** The rows as Parquet data files of the table's current spec, one (or more, by size) per partition. */
  static List<DataFile> dataFiles(Table table, Schema fields, List<List<Object>> rows) {
    Appender files = new Appender(table, fields);
    files.add(rows);
    return files.close();
  }

  /**
   * Position delete files, one per partition of the data files named (unpartitioned: one), each with its positions
   * in file and position order as Iceberg requires.
   */
  static List<DeleteFile> positionDeletes(Table table, List<Position> positions, Map<String, DataFile> files) {
    Map<String, List<Position>> byPartition = new TreeMap<>();
    Map<String, DataFile> sample = new HashMap<>();
    for (Position p : positions) {
      DataFile f = files.get(p.file());
      if (f == null && !table.spec().isUnpartitioned()) {
        throw new IllegalArgumentException("no data file listed for a position in " + p.file());
      }
      String key = f == null ? "" : f.specId() + "/" + table.specs().get(f.specId()).partitionToPath(f.partition());
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
      if (f != null) {
        sample.putIfAbsent(key, f);
      }
    }
    List<DeleteFile> out = new ArrayList<>();
    OutputFileFactory outputs = files(table);
    byPartition.forEach((key, group) -> {
      DataFile f = sample.get(key);
      PartitionSpec spec = f == null ? table.spec() : table.specs().get(f.specId());
      StructLike partition = f == null ? null : f.partition();
      PositionDeleteWriter<Record> writer = writers(table).newPositionDeleteWriter(
          partition == null ? outputs.newOutputFile() : outputs.newOutputFile(spec, partition), spec, partition);
      PositionDelete<Record> delete = PositionDelete.create();
      try (writer) {
        for (Position p : group.stream().sorted(Comparator.comparing(Position::file)
            .thenComparingLong(Position::pos)).distinct().toList()) {
          writer.write(delete.set(p.file(), p.pos()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write a delete file of " + table.name(), e);
      }
      out.add(writer.toDeleteFile());
    });
    return out;
  }

  /** Values named by {@code fields} as a record of {@code schema}: each column by name, in Iceberg's Java types. */
  static Record record(org.apache.iceberg.Schema schema, Schema fields, List<Object> row) {
    GenericRecord record = GenericRecord.create(schema);
    for (Types.NestedField f : schema.columns()) {
      Object v = row.get(fields.index(f.name()));
      record.setField(f.name(), v == null ? null : value(f.type(), v));
    }
    return record;
  }

  private static Object value(org.apache.iceberg.types.Type type, Object v) {
    return switch (type.typeId()) {
      case TIMESTAMP -> {
        LocalDateTime utc = v instanceof Timestamp t ? LocalDateTime.ofInstant(t.toInstant(), ZoneOffset.UTC)
            : LocalDateTime.ofInstant((java.time.Instant) v, ZoneOffset.UTC);
        yield ((Types.TimestampType) type).shouldAdjustToUTC() ? utc.atOffset(ZoneOffset.UTC) : utc;
      }
      case DATE -> v instanceof Date d ? d.toLocalDate() : v;
      case DECIMAL -> v instanceof BigDecimal ? v : new BigDecimal(v.toString());
      default -> v;
    };
  }
}
