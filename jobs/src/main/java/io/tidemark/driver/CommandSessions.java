package io.tidemark.driver;

import io.tidemark.CommandScope;
import io.tidemark.fence.StreamingListeners;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.spark.Work;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * The Spark sessions of one command in the resident driver: each a {@code newSession()} of the driver's, sharing its
 * SparkContext (and so its executors, its warm JIT and caches of classes) but with the command's own SQL settings
 * (shuffle partitions, time zone, the streaming settings), its own temporary views and functions, and its own
 * catalog, made from the command's branch, author and run context. When the command ends its streaming queries are
 * stopped, its jobs cancelled and its sessions let go.
 */
final class CommandSessions implements SparkSessions.Source {
  private final Driver driver;
  private final CommandScope scope;
  private final Map<Map<String, String>, SparkSession> byConf = new HashMap<>();
  private final List<SparkSession> made = new ArrayList<>();

  CommandSessions(Driver driver, CommandScope scope) {
    this.driver = driver;
    this.scope = scope;
    driver.opened(this);
  }

  /** The sessions made so far. */
  synchronized List<SparkSession> sessions() {
    return List.copyOf(made);
  }

  String tag() {
    return Work.TAG_PREFIX + scope.id();
  }

  @Override
  public synchronized SparkSession session(Map<String, String> conf, String appName) {
    SparkSession s = byConf.get(conf);
    if (s == null) {
      driver.servable(conf).ifPresent(d -> {
        throw new IllegalStateException("the resident driver serves other services than this command names ("
            + d + "): run it in a JVM of its own (TIDEMARK_DRIVER=off)");
      });
      s = driver.base().newSession();
      for (Map.Entry<String, String> e : conf.entrySet()) {
        if (!SparkSessions.isContextSetting(e.getKey())) {
          s.conf().set(e.getKey(), e.getValue());
        }
      }
      // the catalogs this session makes (and the sessions Spark clones of it) belong to this command
      s.conf().set("spark.sql.catalog." + SparkSessions.CATALOG + "." + CommandScope.OPTION, scope.id());
      byConf.put(Map.copyOf(conf), s);
      made.add(s);
    }
    // what Spark and Iceberg look up as "the active session" on this thread and the threads it starts
    SparkSession.setActiveSession(s);
    return s;
  }

  /** Stops what the command runs in Spark: its streaming queries and its jobs (a cancel, or its end). */
  void stop() {
    List<SparkSession> sessions;
    synchronized (this) {
      sessions = List.copyOf(made);
    }
    driver.base().sparkContext().cancelJobsWithTag(tag());
    for (SparkSession s : sessions) {
      for (StreamingQuery q : s.streams().active()) {
        try {
          q.stop();
        } catch (Exception e) {
          // stopping is all that is asked; the query's failure is the command's to report
        }
      }
    }
  }

  /** At the command's end: stops what is left and lets the sessions go, with what Spark keeps of them. */
  void release() {
    try {
      stop();
    } finally {
      synchronized (this) {
        made.clear();
        byConf.clear();
      }
      driver.closed(this);
    }
    // the streaming listener buses of this command's sessions and of the clones its stateful queries ran their
    // batches on, and any other command's that ended: all but those of the commands still running and the driver's
    StreamingListeners.releaseAllBut(driver.base().sparkContext(), driver.sessionsInUse());
    SparkSession.clearActiveSession();
  }
}
