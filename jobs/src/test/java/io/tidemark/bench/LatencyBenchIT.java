package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Services;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * `bench latency` runs end to end on tiny sizes, every section in one run (the seed arrivals warm, through the
 * resident driver and in fresh JVMs side by side, cold, the grown dimension, next to DuckDB), and prints its tables
 * (numbers unchecked). It runs on a fresh home, where nothing was bootstrapped: there the benchmark makes the staging
 * branch its catalog works on, and the resident column a driver it starts for that home and stops after.
 */
class LatencyBenchIT extends StackTest {
  @Test
  void benchLatencyPrintsWhereTheTimeGoesOnAFreshHome() throws Exception {
    Map<String, String> fresh = TestStack.environment(Files.createDirectories(tmp.resolve("fresh-home")));
    try {
      // the fresh JVMs (cold and the resident column's) as the tests' own and the DAGs' run (the JIT's first tier):
      // a third less CPU each; the resident column up to the restatement's audit, the last command checked below
      // (the five after it are more of the same kinds, each a fresh JVM the suite would pay for)
      Cli.Result r = Cli.run(fresh, "bench", "latency", "--seed-arrivals", "1", "--companies", "300",
          "--arrival-lines", "5", "--events", "1000", "--resident-commands", "7",
          "--cold-jvm-option=-XX:TieredStopAtLevel=1",
          "--cold-jvm-option=-XX:ReservedCodeCacheSize=240m", "--out", tmp.resolve("out").toString());
      assertThat(r.exitCode()).as("%s", r).isZero();
      String num = "\\s+\\d+";
      assertThat(r.out()).contains("== seed arrivals, warm JVM", "== seed arrivals, cold JVM: tidemark "
              + "stream all (JVM options: -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m)", "== arrivals on a "
              + "dimension of 300 companies", "== dedup and windowed counts over 1000 events", "== summary")
          .containsPattern("seed 1\\s+raw\\s+\\d+\\s+[\\d.]+\\s+\\d+ \\|" + num.repeat(13))
          .containsPattern("seed 1\\s+scd2\\s+\\d+\\s+[\\d.]+\\s+\\d+ \\|" + num.repeat(13))
          .containsPattern("seed 1\\s+stream all\\s+[\\d.]+\\s+\\(the same arrival, the 5 streams in one command; "
              + "\\d+ ms after the last stream\\)")
          .containsPattern("seed 1\\s+not recorded\\s+[\\d.]+\\s+\\(the same arrival, the 5 streams in one command, "
              + "their batches not recorded; \\d+ ms after the last stream\\)")
          .containsPattern("recording the batches: `stream all` time with / without \\(x, all pairs' sums\\)\\s+[\\d.]+")
          .containsPattern("the same, median of the pairs' ratios \\(x\\)\\s+[\\d.]+")
          .containsPattern("recording / not recording over 1 pairs: [\\d.]+x \\(sums\\), per pair: median [\\d.]+x, "
              + "quartiles [\\d.]+-[\\d.]+, range [\\d.]+-[\\d.]+; after the last stream: median \\d+ / \\d+ ms")
          .containsPattern("seed 1\\s+no\\s+[\\d.]+\\s+[\\d.]+\\s+-?[\\d.]+\\s+raw [\\d.]+\\s+dedup [\\d.]+")
          .containsPattern("seed 1\\s+yes\\s+[\\d.]+\\s+[\\d.]+\\s+-?[\\d.]+\\s+raw [\\d.]+\\s+dedup [\\d.]+")
          // the suite's archive (TestStack trains it): the bench reuses a fresh one instead of training its own
          .containsPattern("with the class archive [\\d.]+ s \\(archive the build.s tidemark.jsa, \\d+ MB\\)")
          .containsPattern("#1 5\\s+scd2\\s+5\\s+[\\d.]+\\s+\\d+ \\|")
          .containsPattern("dedup\\s+1000\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+x")
          .containsPattern("counts\\s+1000\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+x")
          // each of the seed's commands through the driver and in a fresh JVM, with the same output
          .contains("== the resident driver: each command through the driver")
          .containsPattern("stream all\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+x\\s+yes")
          .containsPattern("publish\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+x\\s+yes")
          .containsPattern("restate audit\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+x\\s+yes")
          .containsPattern("all 7 commands: [\\d.]+ s in fresh JVMs")
          .doesNotContain(" NO (exit", "the driver did not serve it", "restate merge");
      assertThat(r.errLines()).as("%s", r).isEmpty();
      assertThat(fresh.get("TIDEMARK_HOME") + "/run/driver.sock").as("the driver it started is stopped")
          .satisfies(s -> assertThat(java.nio.file.Path.of(s)).doesNotExist());
    } finally {
      new Services(TidemarkConfig.of(fresh, Map.of())).down();
    }
  }
}
