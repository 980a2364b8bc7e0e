package io.tidemark.lakehouse.tables;

import io.tidemark.fence.DeleteLoading;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

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

  /** Rows read, and how many data and delete files a read opened (what its cost follows). */
  public record Read(List<Record> rows, int files, int deleteFiles) {
    public static final Read NONE = new Read(List.of(), 0, 0);
  }

  /**
   * {@link #read} with the manifests planned and the data files read at once on {@code pool}: a read of a table of
   * many small files (a stream commits a few each time) mostly waits on object storage file by file. Each file is
   * read as Iceberg's generic reader reads it (its delete files applied, then the filter's residual); Parquet only,
   * the format of every tidemark table. {@code pool} must not be one whose threads wait on this read.
   */
  public static Read readAtOnce(Table table, Long snapshot, Expression filter, List<String> columns,
                                ExecutorService pool, long budget) {
    if (snapshot == null && table.currentSnapshot() == null) {
      return Read.NONE;
    }
    Schema projection = projection(table.schema(), columns, filter, false);
    TableScan scan = table.newScan().filter(filter).project(projection).planWith(pool);
    if (snapshot != null) {
      scan = scan.useSnapshot(snapshot);
    }
    List<FileScanTask> tasks = plan(scan, table);
    DeleteLoader deletes = DeleteLoading.once(table);
    List<Future<List<Record>>> reads = tasks.stream().map(t -> pool.submit(() -> collect(open(table, projection, t,
        deletes), table, budget))).toList();
    List<Record> out = new ArrayList<>();
    for (Future<List<Record>> read : reads) {
      out.addAll(get(read));
      if (out.size() > budget) {
        reads.forEach(f -> f.cancel(true));
        throw new TooManyRows(table.name(), budget);
      }
    }
    return new Read(out, tasks.size(), (int) tasks.stream().flatMap(t -> t.deletes().stream())
        .map(DeleteFile::location).distinct().count());
  }

  /** A read at the table's current snapshot and at an earlier one. */
  public record Reads(Read now, Read then) {}

  /**
   * {@link #readAtOnce} at the current snapshot and at {@code earlier}, an ancestor of it, planned and read once when
   * everything after {@code earlier} only added files (appends, row deltas of position deletes): the files live then
   * are live now, a row was there then when its file's sequence number is at most the snapshot's, and deleted then
   * by the delete files of sequence numbers at most the snapshot's. Otherwise two reads.
   */
  public static Reads readNowAndAt(Table table, long earlier, Expression filter, List<String> columns,
                                   ExecutorService pool, long budget) {
    Snapshot then = table.snapshot(earlier);
    if (then == null || table.currentSnapshot() == null || !onlyAddedSince(table, earlier)) {
      return new Reads(readAtOnce(table, null, filter, columns, pool, budget),
          readAtOnce(table, earlier, filter, columns, pool, budget));
    }
    Schema projection = projection(table.schema(), columns, filter, true);
    List<FileScanTask> tasks = plan(table.newScan().filter(filter).project(projection).planWith(pool), table);
    if (tasks.stream().flatMap(t -> t.deletes().stream()).anyMatch(d -> d.content() != FileContent.POSITION_DELETES)) {
      return new Reads(readAtOnce(table, null, filter, columns, pool, budget),
          readAtOnce(table, earlier, filter, columns, pool, budget));
    }
    long seq = then.sequenceNumber();
    DeleteLoader loader = DeleteLoading.once(table);
    List<Future<Record[][]>> reads = tasks.stream().map(t -> pool.submit(() -> {
      String path = t.file().location();
      PositionDeleteIndex deletedNow = loader.loadPositionDeletes(t.deletes(), path);
      PositionDeleteIndex deletedThen = loader.loadPositionDeletes(t.deletes().stream()
          .filter(d -> d.dataSequenceNumber() <= seq).toList(), path);
      boolean wasThere = t.file().dataSequenceNumber() <= seq;
      List<Record> now = new ArrayList<>();
      List<Record> before = new ArrayList<>();
      for (Record r : collect(open(table, projection, t, null), table, budget)) {
        long pos = (Long) r.getField(POS);
        if (!deletedNow.isDeleted(pos)) {
          now.add(r);
        }
        if (wasThere && !deletedThen.isDeleted(pos)) {
          before.add(r);
        }
      }
      return new Record[][] {now.toArray(new Record[0]), before.toArray(new Record[0])};
    })).toList();
    List<Record> now = new ArrayList<>();
    List<Record> before = new ArrayList<>();
    for (Future<Record[][]> read : reads) {
      Record[][] rows = get(read);
      now.addAll(List.of(rows[0]));
      before.addAll(List.of(rows[1]));
      if (now.size() > budget || before.size() > budget) {
        reads.forEach(f -> f.cancel(true));
        throw new TooManyRows(table.name(), budget);
      }
    }
    int deletes = (int) tasks.stream().flatMap(t -> t.deletes().stream()).map(DeleteFile::location).distinct()
        .count();
    return new Reads(new Read(now, tasks.size(), deletes), new Read(before, tasks.size(), deletes));
  }

  /** Whether every snapshot after {@code earlier} up to the current one only added files. */
  private static boolean onlyAddedSince(Table table, long earlier) {
    for (Snapshot s = table.currentSnapshot(); s != null && s.snapshotId() != earlier;
         s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      Map<String, String> summary = s.summary();
      if (DataOperations.REPLACE.equals(s.operation()) || DataOperations.DELETE.equals(s.operation())
          || Long.parseLong(summary.getOrDefault(SnapshotSummary.DELETED_FILES_PROP, "0")) > 0
          || Long.parseLong(summary.getOrDefault(SnapshotSummary.REMOVED_DELETE_FILES_PROP, "0")) > 0
          || Long.parseLong(summary.getOrDefault(SnapshotSummary.ADD_EQ_DELETE_FILES_PROP, "0")) > 0) {
        return false;
      }
      if (s.parentId() == null) {
        return false; // not an ancestor
      }
    }
    return true;
  }

  private static List<FileScanTask> plan(TableScan scan, Table table) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan " + table.name(), e);
    }
    return tasks;
  }

  /** One planned file's rows, as {@code IcebergGenerics} reads them: deletes applied, then the residual filter. */
  private static CloseableIterable<Record> open(Table table, Schema projection, FileScanTask task,
                                                DeleteLoader loader) {
    if (task.file().format() != FileFormat.PARQUET) {
      throw new IllegalStateException(table.name() + ": " + task.file().location() + " is "
          + task.file().format() + ", tidemark reads Parquet only");
    }
    // no loader: the caller applies the deletes itself
    DeleteFilter<Record> deletes = loader == null ? null : DeleteLoading.filter(table, task, projection, loader);
    Schema read = deletes == null ? projection : deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(task.file().location()))
        .project(read).createReaderFunc(file -> GenericParquetReaders.buildReader(read, file, constants))
        .split(task.start(), task.length()).filter(task.residual()).build();
    if (deletes != null) {
      rows = deletes.filter(rows);
    }
    Expression residual = task.residual();
    if (residual == null || residual.equals(Expressions.alwaysTrue())) {
      return rows;
    }
    InternalRecordWrapper wrapper = new InternalRecordWrapper(read.asStruct());
    Evaluator keep = new Evaluator(read.asStruct(), residual, true);
    return CloseableIterable.filter(rows, r -> keep.eval(wrapper.wrap(r)));
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
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
