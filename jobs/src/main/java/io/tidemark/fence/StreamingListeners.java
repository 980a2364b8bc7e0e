package io.tidemark.fence;

import java.lang.reflect.Field;
import org.apache.spark.scheduler.SparkListenerInterface;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryManager;

/**
 * Lets go of what a session's streaming queries registered with the SparkContext, which outlives the session in the
 * resident driver: each session's {@code StreamingQueryManager} adds a listener bus of its own to the context's, and
 * Spark never removes it; a thousand commands would leave a thousand buses, each handed every streaming event.
 *
 * <p>Relies on: Spark 3.5's {@code StreamingQueryManager} keeping that bus in its private field {@code listenerBus},
 * a {@code SparkListener} added to the context's listener bus when the manager is made.
 */
public final class StreamingListeners {
  private StreamingListeners() {}

  /** Removes the session's streaming listener bus from its SparkContext (making the manager first if it had none). */
  public static void release(SparkSession spark) {
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
    spark.sparkContext().removeSparkListener(listener);
  }
}
