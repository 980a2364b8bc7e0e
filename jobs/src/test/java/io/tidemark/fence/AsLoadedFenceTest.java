package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.Test;

/** {@link AsLoaded} on Iceberg's own in-memory catalog, which refuses a commit whose base is stale, as Nessie does. */
class AsLoadedFenceTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.IntegerType.get()));

  @Test
  void everyMethodOfTableOperationsIsPassedOn() {
    Fence.holds(AsLoaded.class, "TableOperations having no method it does not pass on", () -> {
      Class<?> operations = Class.forName(AsLoaded.class.getName() + "$Operations");
      List<String> missed = new ArrayList<>();
      for (Method m : TableOperations.class.getMethods()) {
        try {
          operations.getDeclaredMethod(m.getName(), m.getParameterTypes());
        } catch (NoSuchMethodException e) {
          missed.add(m.toString());
        }
      }
      assertThat(missed).as("methods of TableOperations AsLoaded inherits instead of passing on").isEmpty();
    });
  }

  @Test
  void aCommitStartsFromTheLoadedMetadataAndARaceIsRetriedFromARefresh() {
    Fence.holds(AsLoaded.class, "a BaseTable committing through its TableOperations: current()/refresh() for the "
        + "base, commit(base, metadata) refused when the table moved, then retried from refresh()", () -> {
      InMemoryCatalog catalog = new InMemoryCatalog();
      catalog.initialize("fence", Map.of());
      catalog.createNamespace(Namespace.of("ns"));
      TableIdentifier id = TableIdentifier.of("ns", "t");
      catalog.createTable(id, SCHEMA);
      Counting ops = new Counting(((HasTableOperations) catalog.loadTable(id)).operations());
      Table early = AsLoaded.of(new BaseTable(ops, "fence.ns.t"));

      early.newAppend().appendFile(file("a")).set("by", "as-loaded").commit();
      assertThat(ops.refreshes.get()).as("refreshes of the catalog's table for a commit from the loaded metadata")
          .isZero();
      assertThat(ops.current().currentSnapshot().summary()).containsEntry("by", "as-loaded");

      // another writer, from a load of its own, commits first: the stale commit is refused, then retried
      catalog.loadTable(id).newAppend().appendFile(file("b")).set("by", "other").commit();
      early.newAppend().appendFile(file("c")).set("by", "as-loaded again").commit();
      assertThat(ops.refreshes.get()).as("the retry starts from a refresh").isPositive();
      List<String> writers = new ArrayList<>();
      for (Snapshot s : SnapshotUtil.currentAncestors(catalog.loadTable(id))) {
        writers.add(s.summary().get("by"));
      }
      assertThat(writers).containsExactly("as-loaded again", "other", "as-loaded");
    });
  }

  private static DataFile file(String name) {
    return DataFiles.builder(PartitionSpec.unpartitioned()).withPath("mem://ns/t/" + name + ".parquet")
        .withFileSizeInBytes(10).withRecordCount(1).build();
  }

  /** The catalog's operations, counting refreshes: what AsLoaded saves. */
  private static final class Counting implements TableOperations {
    private final TableOperations ops;
    final AtomicInteger refreshes = new AtomicInteger();

    Counting(TableOperations ops) {
      this.ops = ops;
    }

    @Override
    public TableMetadata current() {
      return ops.current();
    }

    @Override
    public TableMetadata refresh() {
      refreshes.incrementAndGet();
      return ops.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      ops.commit(base, metadata);
    }

    @Override
    public FileIO io() {
      return ops.io();
    }

    @Override
    public EncryptionManager encryption() {
      return ops.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return ops.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return ops.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
      return ops.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
      return ops.newSnapshotId();
    }
  }
}
