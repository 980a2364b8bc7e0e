package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * `bench driver`, the soak of the resident driver, on a small count: every command through one driver (failing ones
 * too), each served by it, what the driver holds sampled and its slopes printed (numbers unchecked but the commands'
 * scopes: none left open).
 */
class DriverSoakIT extends StackTest {
  @Test
  void theSoakRunsMixedCommandsThroughOneDriverWithTheResultsOfFreshJvms() throws Exception {
    // a home of its own on the stack's services: the driver it starts serves no other test's commands
    Path home = Files.createDirectories(stack.home().resolve(TestStack.unique("soak-home")));
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("TIDEMARK_HOME", home.toString());
    env.put("TIDEMARK_NESSIE_URI", stack.endpoints().nessieApi().toString());
    env.put("TIDEMARK_S3_ENDPOINT", stack.endpoints().s3Endpoint().toString());
    env.put("TIDEMARK_S3_ACCESS_KEY", stack.endpoints().s3AccessKey().reveal());
    env.put("TIDEMARK_S3_SECRET_KEY", stack.endpoints().s3SecretKey().reveal());
    // one round of the eight kinds of command, through the driver only: the 1,000-command soak is a benchmark, and
    // the same comparison with fresh JVMs (LatencyBench.masked) is LatencyBenchIT's resident column, and DriverIT's
    // for these kinds; here it would be nine JVMs more
    Cli.Result r = Cli.run(env, "bench", "driver", "--commands", "8", "--compare-rounds", "0", "--sample-every",
        "2", "--events-per-arrival", "50", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.out()).contains("== 8 commands through one resident driver",
            "0 result(s) not as in fresh JVMs (or not served by the driver)")
        .containsPattern("\\s+8\\s+\\d+\\s+\\d+\\s+\\d+\\s+0\\s+\\d+\\s+[\\d.]+\\n")
        .containsPattern("slopes per 1000 commands, after the first tenth \\(\\d+ samples, commands \\d+-8\\): "
            + "heap [-+][\\d.]+ MB, threads [-+][\\d.]+, open files [-+][\\d.]+, open scopes [-+]0\\.0")
        .doesNotContain("DIFFERENT from a fresh JVM", "not served by the driver:");
    assertThat(home.resolve("run/driver.sock")).as("the driver it started is stopped").doesNotExist();
  }
}
