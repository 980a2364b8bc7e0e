package io.tidemark.stream;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.pipeline.Declarations;
import io.tidemark.pipeline.PipelineException;
import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.tables.TableDefinition;
import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Checks what a stream needs before it starts, so that a wrong option fails in seconds with one line and
 * leaves nothing behind (no checkpoint, no commit): the source exists, each table exists with the columns
 * the stream writes.
 */
final class Preflight {
  private Preflight() {}

  static void check(SparkSession spark, String source, TableDefinition... tables) {
    requireSource(spark, source);
    for (TableDefinition d : tables) {
      requireTable(spark, d);
    }
  }

  static void requireSource(SparkSession spark, String source) {
    boolean exists;
    try {
      Path p = new Path(source);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      exists = fs.exists(p);
    } catch (IOException | IllegalArgumentException e) {
      throw new StreamException("source " + source + ": cannot be read (" + e.getMessage() + ")");
    }
    if (!exists) {
      throw new StreamException("source " + source + " does not exist (nothing landed there yet?); check --source");
    }
  }

  /**
   * The table records what the pipeline file declares of it now ({@code parts}): a file changed since the table was
   * made stops the stream in one line until bootstrap has promoted the change or said what it would take. A table not
   * there is for {@link #requireTable} to name.
   */
  static void requireDeclared(SparkSession spark, TableName table, Map<String, String> parts) {
    if (parts.isEmpty() || !spark.catalog().tableExists(table.toString())) {
      return;
    }
    String stale = Declarations.stale(table, parts,
        Declarations.recorded(IcebergTables.load(spark, table).properties()));
    if (stale != null) {
      throw new PipelineException(stale);
    }
  }

  static void requireTable(SparkSession spark, TableDefinition d) {
    org.apache.spark.sql.types.StructType schema;
    try {
      // one catalog round trip: the table's schema, or that it is not there
      schema = spark.table(d.name().sql()).schema();
    } catch (Exception e) {
      // Scala throws AnalysisException (checked in Java's eyes) without declaring it
      if (!(e instanceof org.apache.spark.sql.AnalysisException) || spark.catalog().tableExists(d.name().toString())) {
        throw e;
      }
      throw missing(spark, d);
    }
    Map<String, String> missing = Bootstrap.missingColumns(schema, d);
    if (!missing.isEmpty()) {
      throw new StreamException("table " + d.name() + " lacks column(s) " + String.join(", ", missing.keySet())
          + "; run: tidemark bootstrap");
    }
  }

  /**
   * A table the stream writes that its branch lacks. When the published branch has it, bootstrap would make another
   * table of that name on the staging branch, which could never be published over the one readers have.
   */
  private static StreamException missing(SparkSession spark, TableDefinition d) {
    String branch = spark.conf().get("spark.sql.catalog." + SparkSessions.CATALOG + ".ref", "");
    String published = spark.conf().get(SparkSessions.PUBLISHED_REF, branch);
    if (!published.equals(branch) && exists(spark, d.name().sqlAt(published))) {
      return new StreamException("table " + d.name() + " is on " + published + " but not on the staging branch "
          + branch + ", where the streams write; see docs/troubleshooting.md#a-table-missing-on-the-staging-branch");
    }
    return new StreamException("table " + d.name() + " does not exist on " + (branch.isEmpty() ? "the branch" : branch)
        + "; run: tidemark bootstrap (or check --table)");
  }

  private static boolean exists(SparkSession spark, String table) {
    try {
      spark.table(table).schema();
      return true;
    } catch (Exception e) {
      // Scala throws AnalysisException (checked in Java's eyes) without declaring it
      if (!(e instanceof org.apache.spark.sql.AnalysisException)) {
        throw e;
      }
      return false;
    }
  }
}
