package io.tidemark.lakehouse.tables;

import io.tidemark.config.TableName;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/** The Iceberg API's view of a table in the session's catalog: snapshots, summaries, files. */
public final class IcebergTables {
  private IcebergTables() {}

  /** The table, fresh from the catalog; {@code name} may be qualified with a reference ({@code t@branch}). */
  public static Table load(SparkSession spark, String name) {
    try {
      return Spark3Util.loadIcebergTable(spark, name);
    } catch (Exception e) {
      throw new IllegalStateException("cannot load table " + name + ": " + e.getMessage(), e);
    }
  }

  public static Table load(SparkSession spark, TableName table) {
    return load(spark, table.toString());
  }
}
