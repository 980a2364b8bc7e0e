package io.tidemark.stream;

import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.FileStreamSource;
import org.apache.spark.sql.execution.streaming.FileStreamSourceLog;
import scala.Option;

/**
 * Which landed arrivals a micro-batch read, from the file source's log in the checkpoint ({@code sources/0}): the
 * arrival numbers in the paths of the batch's files. Commits carry them, so the Nessie log says which arrival a
 * commit came from.
 */
final class BatchArrivals {
  private static final Pattern ARRIVAL = Pattern.compile("arrival=(\\d+)");

  private BatchArrivals() {}

  /** "3", "1-3" or "1,4"; empty when the batch read no file (a no-data batch) or the paths have no arrival. */
  static String of(SparkSession spark, String checkpoint, long batchId) {
    FileStreamSourceLog log = new FileStreamSourceLog(FileStreamSourceLog.VERSION(), spark,
        new org.apache.hadoop.fs.Path(checkpoint, "sources/0").toString());
    Option<FileStreamSource.FileEntry[]> files = log.get(batchId);
    if (files.isEmpty()) {
      return "";
    }
    return describe(Arrays.stream(files.get()).map(FileStreamSource.FileEntry::path).toList());
  }

  static String describe(List<String> paths) {
    TreeSet<Integer> arrivals = new TreeSet<>();
    for (String p : paths) {
      Matcher m = ARRIVAL.matcher(p);
      if (m.find()) {
        arrivals.add(Integer.parseInt(m.group(1)));
      }
    }
    if (arrivals.isEmpty()) {
      return "";
    }
    if (arrivals.size() > 1 && arrivals.last() - arrivals.first() == arrivals.size() - 1) {
      return arrivals.first() + "-" + arrivals.last();
    }
    return String.join(",", arrivals.stream().map(String::valueOf).toList());
  }
}
