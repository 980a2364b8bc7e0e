package io.tidemark.lakehouse.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Secret;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Endpoints;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SparkSessionsTest {
  private final TidemarkConfig config = TidemarkConfig.of(Map.of("TIDEMARK_HOME", "/tmp/tidemark-unit",
      "TIDEMARK_SPARK_MASTER", "local[3]"), Map.of());
  private final Endpoints endpoints = new Endpoints(URI.create("http://127.0.0.1:1/api/v2"),
      URI.create("http://127.0.0.1:2"), new Secret("id"), new Secret("key"));

  @Test
  void theConfiguredMasterWithoutSparkSubmit() {
    String before = System.clearProperty("spark.master");
    try {
      assertThat(SparkSessions.conf(config, endpoints)).containsEntry("spark.master", "local[3]")
          .containsEntry("spark.driver.host", "127.0.0.1");
    } finally {
      restore(before);
    }
  }

  @Test
  void sparkSubmitsMasterWinsAndTheDriverHostIsLeftToSpark() {
    String before = System.setProperty("spark.master", "spark://10.0.0.5:7077");
    try {
      assertThat(SparkSessions.conf(config, endpoints)).containsEntry("spark.master", "spark://10.0.0.5:7077")
          .doesNotContainKey("spark.driver.host");
    } finally {
      restore(before);
    }
  }

  @Test
  void localCheckpointsRenameThroughTheFileSystemApiAndS3OnesKeepSparksDefault() {
    String key = "spark.sql.streaming.checkpointFileManagerClass";
    assertThat(SparkSessions.conf(config, endpoints)).containsEntry(key,
        "org.apache.spark.sql.execution.streaming.FileSystemBasedCheckpointFileManager");
    TidemarkConfig onS3 = TidemarkConfig.of(Map.of("TIDEMARK_HOME", "/tmp/tidemark-unit",
        "TIDEMARK_CHECKPOINT_ROOT", "s3a://tidemark-warehouse/checkpoints"), Map.of());
    assertThat(SparkSessions.conf(onS3, endpoints)).doesNotContainKey(key);
  }

  @Test
  void noSlowEventIsLoggedWholeForItCarriesTheKeysAndTheSettingIsTheContexts() {
    assertThat(SparkSessions.conf(config, endpoints)).containsEntry("spark.scheduler.listenerbus.logSlowEvent",
        "false");
    // the resident driver's command sessions may not set it: Spark refuses a core setting on a session
    assertThat(SparkSessions.isContextSetting("spark.scheduler.listenerbus.logSlowEvent")).isTrue();
  }

  private static void restore(String value) {
    if (value == null) {
      System.clearProperty("spark.master");
    } else {
      System.setProperty("spark.master", value);
    }
  }
}
