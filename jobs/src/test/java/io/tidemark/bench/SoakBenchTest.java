package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's arithmetic and what it reads from a command's log and from bash. */
class SoakBenchTest {
  @TempDir
  Path dir;

  @Test
  void fittedGrowthIsTheLinesRiseOverItsStart() {
    Map<Integer, double[]> times = new TreeMap<>();
    times.put(1, new double[] {99});  // the first arrival is left out
    for (int k = 2; k <= 101; k++) {
      times.put(k, new double[] {10 + 0.05 * (k - 2) + (k % 2 == 0 ? 0.3 : -0.3)});
    }
    times.put(50, new double[] {Double.NaN});  // a failed run

    assertThat(SoakBench.fittedGrowth(times, 0, 101)).isCloseTo(0.5, within(0.01));
  }

  @Test
  void aFlatSeriesHasNoGrowth() {
    Map<Integer, double[]> times = new TreeMap<>();
    for (int k = 1; k <= 20; k++) {
      times.put(k, new double[] {k % 3 == 0 ? 21 : 19});
    }
    assertThat(SoakBench.fittedGrowth(times, 0, 20)).isCloseTo(0, within(0.05));
  }

  @Test
  void theTraceIsTheLastFailedEntryToTheEnd() throws Exception {
    Path log = dir.resolve("run.log");
    Files.write(log, List.of("10:00:00.000 WARN Utils - Set SPARK_LOCAL_IP", "10:00:01.000 ERROR Executor - task failed",
        "10:00:02.000 ERROR Tidemark - tidemark stream all failed", "java.lang.IllegalStateException: x",
        "\tat io.tidemark.stream.Streams.all(Streams.java:1)"));

    assertThat(SoakBench.trace(log)).containsExactly("10:00:02.000 ERROR Tidemark - tidemark stream all failed",
        "java.lang.IllegalStateException: x", "\tat io.tidemark.stream.Streams.all(Streams.java:1)");
  }

  @Test
  void warningsAreTalliedByLoggerAndMessageWithoutTheirNumbers() {
    assertThat(SoakBench.kind("10:00:00.123 WARN Tasks - Retrying task after failure: sleepTimeMs=104 Commit failed"))
        .isEqualTo(SoakBench.kind("11:02:03.456 WARN Tasks - Retrying task after failure: sleepTimeMs=98 Commit failed"))
        .isEqualTo("WARN Tasks - Retrying task after failure: sleepTimeMs=# Commit failed");
  }

  @Test
  void theCpuOfTheCommandIsBashsTimesOfItsChildren() {
    assertThat(FreshJvm.childrenCpu("0m0.004s 0m0.002s\n1m2.500s 0m3.250s\n")).isCloseTo(65.75, within(1e-9));
    assertThat(FreshJvm.childrenCpu("")).isNaN();
  }
}
