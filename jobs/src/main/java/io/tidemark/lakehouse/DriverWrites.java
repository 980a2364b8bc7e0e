package io.tidemark.lakehouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
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
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

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
   * Appends {@code rows} as one commit; {@code fields} names their fields (at least every column of the table).
   * Nothing is committed for no rows.
   */
  public static void append(Table table, StructType fields, List<Row> rows, Map<String, String> summary) {
    if (rows.isEmpty()) {
      return;
    }
    AppendFiles append = table.newAppend();
    dataFiles(table, fields, rows).forEach(append::appendFile);
    summary.forEach(append::set);
    append.commit();
  }

  /**
   * Replaces rows of an unpartitioned table in one commit: {@code removed} (positions read at snapshot
   * {@code readSnapshot}, or null for a table that had none) are deleted, {@code added} appended. The commit
   * fails, as a MERGE's would, when a snapshot since then removed a referenced file or added rows or deletes that
   * match {@code conflictFilter}.
   */
  public static void replace(Table table, Long readSnapshot, List<Position> removed, StructType fields,
                             List<Row> added, Expression conflictFilter, Map<String, String> summary) {
    if (!table.spec().isUnpartitioned()) {
      throw new IllegalArgumentException(table.name() + " is partitioned: position deletes here are unpartitioned");
    }
    if (removed.isEmpty() && added.isEmpty()) {
      return;
    }
    RowDelta delta = table.newRowDelta();
    if (!added.isEmpty()) {
      dataFiles(table, fields, added).forEach(delta::addRows);
    }
    if (!removed.isEmpty()) {
      delta.addDeletes(positionDeletes(table, removed));
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
  static List<DataFile> dataFiles(Table table, StructType fields, List<Row> rows) {
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    long target = PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    PartitionKey key = new PartitionKey(spec, schema);
    // partition transforms work on Iceberg's internal values (micros for timestamps), records hold Java times
    InternalRecordWrapper internal = new InternalRecordWrapper(schema.asStruct());
    FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers(table), files(table), table.io(), target);
    try (writer) {
      for (Row row : rows) {
        Record record = record(schema, fields, row);
        key.partition(internal.wrap(record));
        writer.write(record, spec, key.copy());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write data files of " + table.name(), e);
    }
    return writer.result().dataFiles();
  }

  /** One position delete file (unpartitioned), its positions in file and position order as Iceberg requires. */
  static DeleteFile positionDeletes(Table table, List<Position> positions) {
    PositionDeleteWriter<Record> writer = writers(table).newPositionDeleteWriter(files(table).newOutputFile(),
        table.spec(), null);
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (Position p : positions.stream().sorted(Comparator.comparing(Position::file)
          .thenComparingLong(Position::pos)).distinct().toList()) {
        writer.write(delete.set(p.file(), p.pos()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a delete file of " + table.name(), e);
    }
    return writer.toDeleteFile();
  }

  /** A Spark row as a record of {@code schema}: each column by name, in Iceberg's Java types. */
  static Record record(Schema schema, StructType fields, Row row) {
    GenericRecord record = GenericRecord.create(schema);
    for (Types.NestedField f : schema.columns()) {
      int i = fields.fieldIndex(f.name());
      record.setField(f.name(), row.isNullAt(i) ? null : value(f.type(), row.get(i)));
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
