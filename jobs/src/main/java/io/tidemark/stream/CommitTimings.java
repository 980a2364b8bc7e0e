package io.tidemark.stream;

import io.tidemark.CommandScope;
import io.tidemark.config.TableName;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.TimerResult;

/**
 * Iceberg's own timings of commits, per table, summed over the command: the catalog's metrics reporter (every
 * cloned session makes its own catalog, hence totals kept in the command's scope, which in a JVM that runs one
 * command is the JVM's), and per thread: Iceberg reports a commit on the thread that made it, and two streams of one
 * command may commit to the same table at once (the raw archives to the quarantine and the expectations). The streams
 * read them around a write to tell the catalog commit from the writing of data files; the latency benchmark prints
 * them. The reporter also keeps the snapshot of each table's newest commit by the thread: what a stream's write just
 * committed, without loading the table again.
 */
public final class CommitTimings implements MetricsReporter {
  /** The command whose catalog made this reporter: the one its reports count for, whatever thread sends them. */
  private CommandScope scope = CommandScope.jvm();

  @Override
  public void initialize(Map<String, String> properties) {
    scope = CommandScope.of(properties);
  }

  @Override
  public void report(MetricsReport report) {
    Totals totals = totals(scope);
    if (report instanceof CommitReport c && c.commitMetrics() != null) {
      add(totals.commitMs, c.tableName(), c.commitMetrics().totalDuration());
    }
    if (report instanceof CommitReport c && c.tableName() != null) {
      totals.lastSnapshot.put(key(c.tableName()), c.snapshotId());
    }
  }

  /** The snapshot of the table's newest commit by this thread in this command, or null before any. */
  public static Long lastSnapshot(TableName table) {
    return totals(CommandScope.current()).lastSnapshot.get(key(table.toString()));
  }

  /** Forgets this thread's newest commit of the table: after a write, {@link #lastSnapshot} gives the write's own. */
  public static void forgetLastSnapshot(TableName table) {
    totals(CommandScope.current()).lastSnapshot.remove(key(table.toString()));
  }

  /** Milliseconds this thread spent in commits of the table so far. */
  public static long commitMs(TableName table) {
    return sum(totals(CommandScope.current()).commitMs, table);
  }

  private static Totals totals(CommandScope scope) {
    return scope.get(Totals.class, Totals::new);
  }

  private static void add(Map<String, LongAdder> totals, String table, TimerResult t) {
    if (table != null && t != null && t.totalDuration() != null) {
      totals.computeIfAbsent(key(table), k -> new LongAdder()).add(t.totalDuration().toMillis());
    }
  }

  private static long sum(Map<String, LongAdder> totals, TableName table) {
    LongAdder a = totals.get(key(table.toString()));
    return a == null ? 0 : a.sum();
  }

  /**
   * The committing thread and namespace.table of a reported name ("nessie.raw.events", "raw.events@main" and
   * "raw.events" alike).
   */
  private static String key(String name) {
    String n = name.replace("`", "");
    int at = n.indexOf('@');
    n = at < 0 ? n : n.substring(0, at);
    String[] parts = n.split("\\.");
    String table = parts.length <= 2 ? n : parts[parts.length - 2] + "." + parts[parts.length - 1];
    return Thread.currentThread().getId() + " " + table;
  }

  private static final class Totals {
    final Map<String, LongAdder> commitMs = new ConcurrentHashMap<>();
    final Map<String, Long> lastSnapshot = new ConcurrentHashMap<>();
  }
}
