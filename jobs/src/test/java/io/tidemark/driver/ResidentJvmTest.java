package io.tidemark.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ResidentJvmTest {
  private Properties saved;

  @BeforeEach
  void save() {
    saved = (Properties) System.getProperties().clone();
    System.clearProperty(ResidentJvm.KEEP_ALIVE);
    System.clearProperty(ResidentJvm.PERIODIC_GC_SETTING);
    for (String k : new String[] {"spark.ui.retainedJobs", "spark.ui.retainedStages", "spark.sql.ui.retainedExecutions",
        "spark.ui.retainedTasks", ResidentJvm.VECTORIZATION, ResidentJvm.FILE_STATUS_CACHE}) {
      System.clearProperty(k);
    }
  }

  @AfterEach
  void restore() {
    System.setProperties(saved);
  }

  @Test
  void theDriverPoolsAnIdleHttpConnectionSecondsNotMinutesCollectsGarbageEveryFewMinutesKeepsLessStatusReadsRowsAndCachesNoListing() {
    ResidentJvm.prepare();
    assertThat(System.getProperty("jdk.httpclient.keepalive.timeout")).isEqualTo("10");
    assertThat(System.getProperty("spark.cleaner.periodicGC.interval")).isEqualTo("5min");
    assertThat(System.getProperty("spark.ui.retainedJobs")).isEqualTo("100");
    assertThat(System.getProperty("spark.ui.retainedStages")).isEqualTo("100");
    assertThat(System.getProperty("spark.sql.ui.retainedExecutions")).isEqualTo("100");
    assertThat(System.getProperty("spark.ui.retainedTasks")).isEqualTo("10000");
    assertThat(System.getProperty("spark.sql.iceberg.vectorization.enabled")).isEqualTo("false");
    assertThat(System.getProperty("spark.sql.hive.filesourcePartitionFileCacheSize")).isEqualTo("0");
  }

  @Test
  void whatTheJvmWasGivenIsKept() {
    System.setProperty("jdk.httpclient.keepalive.timeout", "30");
    System.setProperty("spark.cleaner.periodicGC.interval", "1min");
    ResidentJvm.prepare();
    assertThat(System.getProperty("jdk.httpclient.keepalive.timeout")).isEqualTo("30");
    assertThat(System.getProperty("spark.cleaner.periodicGC.interval")).isEqualTo("1min");
  }
}
