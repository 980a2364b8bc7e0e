package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.LocalSpark;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.StreamingQueryListenerBus;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamingListeners} on a local Spark: a new session's streaming query manager adds a listener bus to the
 * context's, which stays there after the session is gone, until released.
 */
class StreamingListenersFenceTest {
  @Test
  void aSessionsStreamingListenerBusIsRemovedFromTheContext() {
    Fence.holds(StreamingListeners.class, "StreamingQueryManager.listenerBus, a listener of the context's bus", () -> {
      SparkContext sc = LocalSpark.get().sparkContext();
      SparkSession session = LocalSpark.get().newSession();
      long before = buses(sc);
      session.streams();
      assertThat(buses(sc)).as("the session's manager added its bus").isEqualTo(before + 1);
      StreamingListeners.release(session);
      assertThat(buses(sc)).as("released").isEqualTo(before);
    });
  }

  private static long buses(SparkContext sc) {
    return sc.listenerBus().listeners().stream().filter(l -> l instanceof StreamingQueryListenerBus).count();
  }
}
