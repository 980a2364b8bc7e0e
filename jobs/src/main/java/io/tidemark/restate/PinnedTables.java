package io.tidemark.restate;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * The tables a stage works with, each loaded once from the catalog at one Nessie reference: a commit
 * ({@code branch#hash}: what the stage reads stays as it was at that commit, however long the stage takes) or a
 * branch's head (what the stage writes to). Every read of the stage goes through the table loaded here.
 */
final class PinnedTables {
  private final SparkSession spark;
  private final String ref;
  private final Map<TableName, Table> loaded = new HashMap<>();

  private PinnedTables(SparkSession spark, String ref) {
    this.spark = spark;
    this.ref = ref;
  }

  /** The tables as they are at one commit of a branch. */
  static PinnedTables at(SparkSession spark, String branch, String hash) {
    return new PinnedTables(spark, branch + "#" + hash);
  }

  /** The tables on a branch, to commit to: each loaded at the branch's head when first used. */
  static PinnedTables onBranch(SparkSession spark, String branch) {
    return new PinnedTables(spark, branch);
  }

  Table get(TableName table) {
    return loaded.computeIfAbsent(table, t -> IcebergTables.load(spark, sql(t)));
  }

  /** The table's snapshot as loaded; null for a table never written. */
  Long snapshot(TableName table) {
    Snapshot s = get(table).currentSnapshot();
    return s == null ? null : s.snapshotId();
  }

  /** The table at this reference, as Spark SQL names it (for the work done in Spark). */
  String sql(TableName table) {
    return "`" + table.namespace() + "`.`" + table.table() + "@" + ref + "`";
  }
}
