package io.tidemark.fence;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A table whose commit starts from the metadata it was loaded with, instead of asking the catalog again, and does
 * not read back what it committed. Iceberg refreshes the table before a commit and once more after it: with Nessie
 * four round trips (the branch, the table's content, each time) and a read of the new metadata file, which is a
 * third of a small append's commit. For an append to a table just loaded that is nothing learned: the commit
 * names the catalog commit its metadata was read at, and Nessie refuses it when the table changed since (another
 * writer's commit); Iceberg then retries it as always, from a real refresh. Appends only: they validate nothing
 * against the table's other snapshots, so a commit that Nessie accepts is one a refresh would have produced too.
 *
 * <p>Relies on: a {@code BaseTable}'s commits go through its {@code TableOperations}: {@code current()} and
 * {@code refresh()} for the base, {@code commit(base, metadata)} for the commit, which fails with a
 * {@code CommitFailedException} when the catalog's table is no longer {@code base}, and is then retried from
 * {@code refresh()}; {@code TableOperations} has no method this class does not pass on.
 */
public final class AsLoaded {
  private AsLoaded() {}

  /** The table, committing from the metadata it holds now; a table without catalog operations as it is. */
  public static Table of(Table table) {
    if (!(table instanceof HasTableOperations t)) {
      return table;
    }
    return new BaseTable(new Operations(t.operations()), table.name());
  }

  private static final class Operations implements TableOperations {
    private final TableOperations ops;
    // the table as this process knows it: loaded, then as it committed it; null once the catalog must be asked
    private TableMetadata known;

    Operations(TableOperations ops) {
      this.ops = ops;
      this.known = ops.current();
    }

    @Override
    public synchronized TableMetadata current() {
      return known != null ? known : ops.current();
    }

    @Override
    public synchronized TableMetadata refresh() {
      return known != null ? known : ops.refresh();
    }

    @Override
    public synchronized void commit(TableMetadata base, TableMetadata metadata) {
      try {
        ops.commit(base, metadata);
        known = metadata;
      } catch (RuntimeException e) {
        // the table changed since it was loaded (CommitFailedException), or the outcome is unknown: a retry, or
        // whatever comes next, starts from the catalog's version
        known = null;
        throw e;
      }
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

    @Override
    public boolean requireStrictCleanup() {
      return ops.requireStrictCleanup();
    }
  }
}
