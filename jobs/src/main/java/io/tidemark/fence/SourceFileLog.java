package io.tidemark.fence;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.FileStreamSource;
import org.apache.spark.sql.execution.streaming.FileStreamSourceLog;
import scala.Option;
import scala.Tuple2;

/**
 * The files a query's file source took in, from its log in the checkpoint ({@code sources/0}): which landed files a
 * batch read (the arrivals its commits name), and which every batch committed so far read (what landing cleanup may
 * remove).
 *
 * <p>Relies on Spark's internal {@code FileStreamSourceLog}: constructed from its {@code VERSION}, the session and the
 * log's path, it returns for a range of its own log offsets (one per batch that found new files, the number the offset
 * log's {@code logOffset} names) the entries of the files each of those batches read, by path as the source listed it.
 */
public final class SourceFileLog {
  private SourceFileLog() {}

  /**
   * The paths of the files of the source log's entries {@code from} to {@code to} (its own offsets, inclusive) in the
   * query's checkpoint; none when {@code to} is before {@code from}.
   */
  public static List<String> files(SparkSession spark, String checkpoint, long from, long to) {
    List<String> paths = new ArrayList<>();
    if (to < from) {
      return paths;
    }
    FileStreamSourceLog log = new FileStreamSourceLog(FileStreamSourceLog.VERSION(), spark,
        new Path(checkpoint, "sources/0").toString());
    for (Tuple2<Object, FileStreamSource.FileEntry[]> entry : log.get(Option.apply((Object) from),
        Option.apply((Object) to))) {
      Arrays.stream(entry._2()).map(FileStreamSource.FileEntry::path).forEach(paths::add);
    }
    return paths;
  }
}
