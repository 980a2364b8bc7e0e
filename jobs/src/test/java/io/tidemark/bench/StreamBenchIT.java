package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * The benchmark commands run end to end on tiny sizes (and draw their chart); their numbers are not checked. Through
 * their command lines in this JVM (its Spark is warm): a benchmark is a command like the others at start.
 */
class StreamBenchIT extends StackTest {
  @Test
  void benchStreamsRunsAndDrawsItsChart() throws Exception {
    Cli.Result r = Cli.inProcess(stack.env(), "bench", "streams", "--sizes", "1000", "--repeat", "1",
        "--runs", "3", "--events-per-run", "1000", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).contains("== throughput", "== state and checkpoint growth")
        .containsPattern("dedup\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+x")
        .containsPattern("withinWatermark/hdfs\\s+3\\s+\\d+")
        .containsPattern("dropDuplicates/hdfs\\s+3\\s+\\d+");
    Path png = tmp.resolve("stream-state.png");
    assertThat(png).exists();
    assertThat(ImageIO.read(png.toFile()).getWidth()).isGreaterThan(1000);
    assertThat(Files.size(png)).isGreaterThan(10_000);
  }

  @Test
  void benchScd2RunsBothLayouts() {
    Cli.Result r = Cli.inProcess(stack.env(), "bench", "scd2", "--sizes", "50,120", "--changes", "20",
        "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).containsPattern("copy-on-write\\s+2\\s+120\\s")
        .containsPattern("merge-on-read\\s+2\\s+120\\s");
  }

  @Test
  void benchRestateRunsAndCompares() {
    Cli.Result r = Cli.inProcess(stack.env(), "bench", "restate", "--only", "history", "--histories",
        "1000,2000", "--late", "10", "--events-per-day", "500", "--arrivals", "2", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).containsPattern("\\s+1000\\s+2\\s+[\\d.]+\\s+[\\d.]+\\s+\\d+\\s+10\\s")
        .contains("2.0x the history:");
  }

  @Test
  void benchRestateShowsTheSeedStageByStage() {
    Cli.Result r = Cli.inProcess(stack.env(), "bench", "restate", "--only", "seed", "--fresh-jvm-option",
        "none", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    for (String stage : new String[] {"plan", "write", "audit", "merge", "tag"}) {
      assertThat(r.out()).containsPattern("warm JVM, first\\s+" + stage + "\\s+[\\d.]+\\s+\\d+\\s+\\d+");
    }
    assertThat(r.out()).containsPattern("warm JVM, again\\s+all\\s+[\\d.]+")
        .containsPattern("nothing new since the last restatement: [\\d.]+ s, \\d+ Spark job\\(s\\), \\d+ table load")
        .containsPattern("an on-time arrival since the last restatement: [\\d.]+ s, ")
        .doesNotContain("not what this measures");
  }
}
