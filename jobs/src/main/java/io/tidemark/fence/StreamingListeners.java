package io.tidemark.fence;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListenerInterface;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.StreamingQueryListenerBus;
import org.apache.spark.sql.streaming.StreamingQueryManager;

/**
 * Lets go of what sessions' streaming query managers registered with the SparkContext, which outlives the sessions in
 * the resident driver: each session's {@code StreamingQueryManager} adds a listener bus of its own to the context's,
 * and Spark never removes it; a thousand commands would leave a thousand buses, each handed every streaming event.
 * Not only the sessions a command makes: a stateful streaming query (deduplication, windowed counts) runs its batches
 * on a clone of its session, and its state operators ask the clone for the state store coordinator, which makes the
 * clone a manager, and so a bus, too (two more per {@code stream all} of the seed).
 *
 * <p>Relies on: Spark 3.5's {@code StreamingQueryManager} keeping that bus in its private field {@code listenerBus},
 * a {@code StreamingQueryListenerBus} (a {@code SparkListener}) added to the context's listener bus when the manager
 * is made; the context's {@code listenerBus().listeners()} listing every listener of every queue.
 */
public final class StreamingListeners {
  private StreamingListeners() {}

  /** Removes the session's streaming listener bus from its SparkContext (making the manager first if it had none). */
  public static void release(SparkSession spark) {
    spark.sparkContext().removeSparkListener(bus(spark));
  }

  /**
   * Removes from the context every streaming listener bus but those of the sessions in {@code keep} (the sessions of
   * the commands still running, the driver's own): the ones of sessions gone, whose managers no one can reach to add
   * a listener to, and of the clones Spark makes for a query's batches. How many it removed.
   */
  public static int releaseAllBut(SparkContext sc, Collection<SparkSession> keep) {
    // the context's buses first, then the ones to keep: a session made in between has made no bus in that list
    List<SparkListenerInterface> listeners = sc.listenerBus().listeners();
    Set<SparkListenerInterface> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    for (SparkSession s : keep) {
      kept.add(bus(s));
    }
    int removed = 0;
    for (SparkListenerInterface l : listeners) {
      if (l instanceof StreamingQueryListenerBus && !kept.contains(l)) {
        sc.removeSparkListener(l);
        removed++;
      }
    }
    return removed;
  }

  /** The streaming listener bus of the session's manager (made if it had none). */
  private static SparkListenerInterface bus(SparkSession spark) {
    StreamingQueryManager manager = spark.streams();
    Object bus;
    try {
      Field f = StreamingQueryManager.class.getDeclaredField("listenerBus");
      f.setAccessible(true);
      bus = f.get(manager);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("FENCE BROKEN: StreamingListeners relies on StreamingQueryManager.listenerBus "
          + "(Spark " + spark.version() + "): " + e, e);
    }
    if (!(bus instanceof SparkListenerInterface listener)) {
      throw new IllegalStateException("FENCE BROKEN: StreamingListeners relies on StreamingQueryManager.listenerBus "
          + "being a SparkListener (Spark " + spark.version() + "), not " + bus);
    }
    return listener;
  }
}
