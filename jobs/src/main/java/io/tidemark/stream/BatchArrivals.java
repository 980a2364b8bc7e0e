package io.tidemark.stream;

import io.tidemark.fence.OffsetLog;
import io.tidemark.fence.SourceFileLog;
import io.tidemark.land.LandingLayout;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.sql.SparkSession;

/**
 * Which landed arrivals a micro-batch read, from the file source's log in the checkpoint ({@link SourceFileLog}): the
 * arrival numbers in the paths of the batch's files. Commits carry them, so the Nessie log says which arrival a
 * commit came from.
 */
public final class BatchArrivals {
  private BatchArrivals() {}

  /**
   * "3", "1-3" or "1,4"; empty when the batch read no file (a no-data batch) or the paths have no arrival. The
   * source log numbers its entries itself, one per batch that found new files, so after a query's first no-data
   * batch its numbers and the query's batch ids part: the batch's own range is read from the offset log.
   */
  static String of(SparkSession spark, String checkpoint, long batchId) {
    return of(spark, checkpoint, batchId, java.util.Set.of());
  }

  /** The same, leaving out {@code files} the batch read but did not take in (a raw archive's on a lost checkpoint). */
  static String of(SparkSession spark, String checkpoint, long batchId, java.util.Set<String> files) {
    long end = OffsetLog.sourceLogOffset(spark, checkpoint, batchId);
    long start = batchId > 0 ? OffsetLog.sourceLogOffset(spark, checkpoint, batchId - 1) : -1;
    if (end < 0 || end <= start) {
      return "";
    }
    return describe(SourceFileLog.files(spark, checkpoint, start + 1, end).stream().filter(f -> !files.contains(f))
        .toList());
  }

  static String describe(List<String> paths) {
    TreeSet<Integer> arrivals = new TreeSet<>();
    for (String p : paths) {
      LandingLayout.arrivalOf(p).ifPresent(arrivals::add);
    }
    return describe(arrivals);
  }

  /** "3", "1-3" or "1,4" for these arrival numbers; empty for none. */
  public static String describe(java.util.SortedSet<Integer> arrivals) {
    if (arrivals.isEmpty()) {
      return "";
    }
    if (arrivals.size() > 1 && arrivals.last() - arrivals.first() == arrivals.size() - 1) {
      return arrivals.first() + "-" + arrivals.last();
    }
    return String.join(",", arrivals.stream().map(String::valueOf).toList());
  }

  /** The arrival numbers of a description {@link #describe} made ("1-3,5" too); none for null or empty. */
  public static TreeSet<Integer> parse(String arrivals) {
    TreeSet<Integer> out = new TreeSet<>();
    if (arrivals == null || arrivals.isBlank()) {
      return out;
    }
    for (String part : arrivals.split(",")) {
      String[] range = part.strip().split("-");
      int from = Integer.parseInt(range[0].strip());
      int to = Integer.parseInt(range[range.length - 1].strip());
      for (int a = from; a <= to; a++) {
        out.add(a);
      }
    }
    return out;
  }

  /** The newest arrival of a description {@link #describe} made ("1-3": 3), or null for none. */
  static Integer newest(String arrivals) {
    if (arrivals == null || arrivals.isEmpty()) {
      return null;
    }
    String[] parts = arrivals.split("[,-]");
    return Integer.valueOf(parts[parts.length - 1]);
  }
}
