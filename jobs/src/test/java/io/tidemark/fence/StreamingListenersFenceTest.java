package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.LocalSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.streaming.StreamingQueryListenerBus;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StreamingListeners} on a local Spark: a new session's streaming query manager adds a listener bus to the
 * context's, which stays there after the session is gone, until released; so does the clone a stateful query runs its
 * batches on.
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

  @Test
  void theBusOfTheCloneAStatefulQueryRanOnIsRemovedWithTheOthersButTheKeptOnes(@TempDir Path dir) throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    Files.writeString(in.resolve("a.json"), "{\"id\": 1, \"ts\": \"2026-01-01T00:00:00Z\"}\n"
        + "{\"id\": 1, \"ts\": \"2026-01-01T00:01:00Z\"}\n");
    Fence.holds(StreamingListeners.class, "StreamingQueryManager.listenerBus, a listener of the context's bus; "
        + "SparkContext.listenerBus().listeners()", () -> {
      SparkSession kept = LocalSpark.get();
      SparkContext sc = kept.sparkContext();
      StreamingListeners.releaseAllBut(sc, List.of(kept));
      assertThat(buses(sc)).as("the kept session's bus alone").isEqualTo(1);
      SparkSession session = kept.newSession();
      session.readStream().schema("id INT, ts TIMESTAMP").json(in.toString())
          .withWatermark("ts", "10 minutes").dropDuplicates("id")
          .writeStream().format("noop").option("checkpointLocation", dir.resolve("cp").toString())
          .trigger(Trigger.AvailableNow()).start().awaitTermination();
      assertThat(buses(sc)).as("the session's bus and its clone's, which the state operators made").isEqualTo(3);
      StreamingListeners.releaseAllBut(sc, List.of(kept, session));
      assertThat(buses(sc)).as("the clone's released, the running command's kept").isEqualTo(2);
      StreamingListeners.releaseAllBut(sc, List.of(kept));
      assertThat(buses(sc)).as("the command ended: its bus released").isEqualTo(1);
    });
  }

  private static long buses(SparkContext sc) {
    return sc.listenerBus().listeners().stream().filter(l -> l instanceof StreamingQueryListenerBus).count();
  }
}
