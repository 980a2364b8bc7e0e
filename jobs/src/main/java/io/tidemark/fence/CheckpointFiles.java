package io.tidemark.fence;

/**
 * How Spark writes a streaming checkpoint's files on a local disk.
 *
 * <p>Relies on Spark's internal, undocumented setting {@code spark.sql.streaming.checkpointFileManagerClass} and its
 * internal {@code FileSystemBasedCheckpointFileManager}: renames through Hadoop's FileSystem API, one system call each,
 * where the default (FileContext) forks {@code readlink} for every rename of an offset, commit and state file.
 */
public final class CheckpointFiles {
  /** The setting that names the checkpoint file manager. */
  public static final String SETTING = "spark.sql.streaming.checkpointFileManagerClass";
  /** The file manager that renames through the FileSystem API. */
  public static final String FILE_SYSTEM_MANAGER =
      "org.apache.spark.sql.execution.streaming.FileSystemBasedCheckpointFileManager";

  private CheckpointFiles() {}
}
