package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Column;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.tables.DriverWrites;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link DeleteLoading} on a table of Iceberg's in-memory catalog: two Parquet data files and one position delete
 * file that names rows of both, read file by file through the delete filter with one shared loader.
 */
class DeleteLoadingFenceTest {
  private static final Column ID = Column.of("id", Type.INT);

  @Test
  void aDeleteFileNamingRowsOfTwoDataFilesIsLoadedOnceAndAppliedToBoth() {
    Fence.holds(DeleteLoading.class, "BaseDeleteLoader asking canCache(size) and going through getOrLoad(key, "
        + "loader, size), and GenericDeleteFilter taking its loader from newDeleteLoader()", () -> {
      InMemoryCatalog catalog = new InMemoryCatalog();
      catalog.initialize("fence", Map.of());
      catalog.createNamespace(Namespace.of("ns"));
      Table table = catalog.createTable(TableIdentifier.of("ns", "t"),
          new Schema(Types.NestedField.optional(1, ID.name(), Types.IntegerType.get())));
      DriverWrites.append(table, io.tidemark.core.Schema.of(ID), List.of(List.of(1), List.of(2)), Map.of());
      table.refresh();
      DriverWrites.append(table, io.tidemark.core.Schema.of(ID), List.of(List.of(3), List.of(4)), Map.of());
      table.refresh();
      List<String> files = new ArrayList<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        tasks.forEach(t -> files.add(t.file().location()));
      }
      assertThat(files).hasSize(2);
      // the first row of each file deleted, in one delete file
      DriverWrites.replace(table, table.currentSnapshot().snapshotId(), List.of(
          new DriverWrites.Position(files.get(0), 0), new DriverWrites.Position(files.get(1), 0)),
          io.tidemark.core.Schema.of(ID), List.of(), Expressions.alwaysTrue(), Map.of());
      table.refresh();

      AtomicInteger opened = new AtomicInteger();
      DeleteLoader loader = DeleteLoading.once(f -> {
        opened.incrementAndGet();
        return table.io().newInputFile(f.location());
      });
      List<Integer> ids = new ArrayList<>();
      int deleteFiles = 0;
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          deleteFiles += task.deletes().size();
          DeleteFilter<Record> filter = DeleteLoading.filter(table, task, table.schema(), loader);
          Schema read = filter.requiredSchema();
          try (CloseableIterable<Record> rows = filter.filter(Parquet.read(table.io().newInputFile(
              task.file().location())).project(read)
              .createReaderFunc(s -> GenericParquetReaders.buildReader(read, s)).build())) {
            rows.forEach(r -> ids.add((Integer) r.getField(ID.name())));
          }
        }
      }
      assertThat(deleteFiles).as("one delete file applies to both data files").isEqualTo(2);
      assertThat(ids).as("each file's first row deleted").containsExactlyInAnyOrder(2, 4);
      assertThat(opened.get()).as("times the delete file was opened for the two data files").isEqualTo(1);
    });
  }
}
