package io.tidemark.maintain;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.tables.IcebergTables;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Bin-packs small data files and rewrites manifests with Iceberg's own Spark procedures, on the session's branch.
 * The procedures commit like any writer, so a stream committing meanwhile makes the rewrite's commit conflict:
 * Iceberg retries it on the new head (a rewrite keeps the rows; appends made meanwhile stay), and when its retries
 * run out the whole procedure is run again here, on the new head.
 */
public final class Compaction {
  /** How a table is compacted. {@code minInputFiles}: a partition with fewer small files is left alone. */
  public record Options(long targetFileBytes, int minInputFiles, int attempts, boolean dryRun) {
    public static Options defaults() {
      return new Options(128L * 1024 * 1024, 5, 5, false);
    }
  }

  /** What compaction did (or, in a dry run, would do) to one table. */
  public record Result(TableName table, int filesBefore, int filesAfter, int rewrittenFiles, int addedFiles,
                       int manifestsBefore, int manifestsAfter, int attempts) {
    public String line(boolean dryRun) {
      if (dryRun) {
        return table + ": " + filesBefore + " data files, " + manifestsBefore + " manifests; would rewrite "
            + rewrittenFiles + " files in partitions of at least the minimum number of small files";
      }
      return table + ": data files " + filesBefore + " -> " + filesAfter + " (rewrote " + rewrittenFiles + " into "
          + addedFiles + "), manifests " + manifestsBefore + " -> " + manifestsAfter
          + (attempts > 1 ? " (" + attempts + " attempts: a commit raced it)" : "");
    }
  }

  private final SparkSession spark;
  private final Options options;

  public Compaction(SparkSession spark, Options options) {
    this.spark = spark;
    this.options = options;
  }

  public List<Result> run(List<TableName> tables, Consumer<String> out) {
    List<Result> results = new ArrayList<>();
    for (TableName t : tables) {
      Result r = compact(t);
      out.accept(r.line(options.dryRun()));
      results.add(r);
    }
    return results;
  }

  public Result compact(TableName table) {
    Table before = IcebergTables.load(spark, table);
    int files = dataFiles(before);
    int manifests = manifests(before);
    if (options.dryRun()) {
      return new Result(table, files, files, wouldRewrite(table, before), 0, manifests, manifests, 0);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        Row data = call("rewrite_data_files", table, "options => map('target-file-size-bytes', '"
            + options.targetFileBytes() + "', 'min-input-files', '" + options.minInputFiles() + "', "
            + "'partial-progress.enabled', 'false', "
            // the SCD2 stream deletes rows by position (see DriverWrites): a data file with deletes is rewritten
            // without them, and delete files left pointing at rewritten files go too
            + "'delete-file-threshold', '1', 'remove-dangling-deletes', 'true')");
        if (deleteFiles(IcebergTables.load(spark, table)) > 0) {
          // a delete file whose rows were all applied by the rewrite above still points at the files it replaced
          // when it came with the rewrite's starting snapshot; rewriting the delete files drops such dangling ones
          call("rewrite_position_delete_files", table, "options => map('rewrite-all', 'true')");
        }
        call("rewrite_manifests", table, null);
        Table after = IcebergTables.load(spark, table);
        return new Result(table, files, dataFiles(after), data.getInt(0), data.getInt(1), manifests,
            manifests(after), attempt);
      } catch (RuntimeException e) {
        if (!isConflict(e) || attempt >= options.attempts()) {
          throw new MaintenanceException("compaction of " + table + " failed after " + attempt + " attempt(s): "
              + io.tidemark.TidemarkException.firstLine(e), e);
        }
      }
    }
  }

  private Row call(String procedure, TableName table, String args) {
    String sql = "CALL " + SparkSessions.CATALOG + ".system." + procedure + "(table => '" + table + "'"
        + (args == null ? "" : ", " + args) + ")";
    return spark.sql(sql).collectAsList().get(0);
  }

  /** Data files in partitions holding at least the minimum number of files smaller than the target. */
  private int wouldRewrite(TableName name, Table table) {
    if (table.currentSnapshot() == null) {
      return 0;
    }
    List<Row> rows = spark.sql("SELECT count(*) FROM " + name + ".files WHERE content = 0 AND file_size_in_bytes < "
        + options.targetFileBytes() + (table.spec().isUnpartitioned() ? "" : " GROUP BY partition")
        + " HAVING count(*) >= " + options.minInputFiles()).collectAsList();
    return rows.stream().mapToInt(r -> (int) r.getLong(0)).sum();
  }

  static int dataFiles(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? 0 : Integer.parseInt(s.summary().getOrDefault(SnapshotSummary.TOTAL_DATA_FILES_PROP, "0"));
  }

  static int deleteFiles(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? 0 : Integer.parseInt(s.summary().getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "0"));
  }

  static int manifests(Table table) {
    Snapshot s = table.currentSnapshot();
    return s == null ? 0 : s.allManifests(table.io()).size();
  }

  private static boolean isConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CommitFailedException || t instanceof ValidationException
          || (t.getMessage() != null && t.getMessage().contains("Cannot commit"))) {
        return true;
      }
    }
    return false;
  }
}
