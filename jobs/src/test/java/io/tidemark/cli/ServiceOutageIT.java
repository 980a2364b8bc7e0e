package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.Docs;
import io.tidemark.testing.OwnServicesTest;
import io.tidemark.testing.Recipes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The S3 server goes away in the middle of {@code stream all} (its own pair of services: on {@link OwnServicesTest},
 * as it stops the S3 server on purpose, which the shared stack's must not be): the console shows one line naming the
 * S3 server and what to run, no library logs; the log file under the home keeps the detail; after
 * {@code services up} the rerun works.
 */
class ServiceOutageIT extends OwnServicesTest {
  /** A hang guard for the two stream runs, which take minutes on a busy machine; not a speed assertion. */
  private static final long TIMEOUT_SECONDS = 600;

  @Test
  void s3GoneMidStreamIsOneLineNamingItAndTheRerunWorks() throws Exception {
    Map<String, String> env = ownEnv();
    String s3 = "http://127.0.0.1:" + env.get("TIDEMARK_S3_PORT");
    assertThat(Cli.run(env, "services", "up").exitCode()).isZero();
    assertThat(Cli.run(env, "bootstrap").exitCode()).isZero();
    // events only: `stream all` skips the company streams, whose failure path is the same
    assertThat(Cli.run(env, "land", "--scenario", "seed-dedup").exitCode()).isZero();

    Process stream = start(env, "stream", "all");
    // a stream has started once a checkpoint exists: the S3 server goes away under it
    Path checkpoints = home.resolve("checkpoints");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (!Files.isDirectory(checkpoints) && stream.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertThat(stream.isAlive()).as("stream all still running when the S3 server goes away").isTrue();
    ProcessHandle s3Server = ProcessHandle.of(pid("s3")).orElseThrow();
    s3Server.destroy();
    s3Server.onExit().get(30, TimeUnit.SECONDS);
    Run failed = await(stream);

    assertThat(failed.code()).as("%s", failed).isEqualTo(3);
    // the run's own log, which the commands after it leave alone
    Matcher line = Pattern.compile("tidemark: ([a-z0-9-]+ failed: )?cannot reach the S3 server at " + Pattern.quote(s3)
        + " \\([^)]+\\); check `tidemark services status` \\[details in (" + Pattern.quote(home.resolve("logs")
        + "/tidemark-stream-all-") + "[0-9.-]+\\.log)]").matcher(failed.err().strip());
    assertThat(line.matches()).as("%s", failed).isTrue();
    Path log = Path.of(line.group(2));
    assertThat(failed.out() + failed.err()).as("no library logs on the console")
        .doesNotContain(" WARN ", " ERROR ", "\tat ", "org.apache.");
    assertThat(Files.readString(log)).as("the detail is in the log file")
        .contains("ERROR Tidemark - tidemark stream all failed").contains("\tat ")
        .contains("127.0.0.1:" + env.get("TIDEMARK_S3_PORT"));

    // the recipe, as the page writes it: look, bring the service back, run the command again, publish
    List<Cli.Result> ran = new Recipes(Docs.repo().resolve("docs/troubleshooting.md"), tmp, env)
        .run("a-service-down", 0, Map.of(), java.util.Set.of("./tidemark services status"));
    assertThat(ran.get(0).out()).as("services status names the S3 server as down").contains("s3");
    Cli.Result rerun = ran.get(2);
    assertThat(Files.readString(log)).as("the failed run's log, after the next run")
        .contains("ERROR Tidemark - tidemark stream all failed");
    assertThat(rerun.err()).as("a normal run keeps the console to tidemark's own lines").isEmpty();
    assertThat(rerun.out()).contains("dedup: ").contains("windowed-counts: ");
    assertThat(ran.get(3).out()).as("the recipe's publish").contains("published events arrival");
    Cli.Result dups = Cli.run(env, "sql", "--format", "csv",
        "SELECT count(*) AS events, count(*) - count(DISTINCT event_id) AS duplicates FROM facts.events@"
            + stack.config().nessieRef());
    assertThat(dups.exitCode()).as("%s", dups).isZero();
    String[] row = dups.out().strip().split("\n")[1].split(",");
    assertThat(Long.parseLong(row[0])).as("events after the rerun").isPositive();
    assertThat(row[1]).as("duplicates after the rerun").isEqualTo("0");
  }

  private long pid(String name) throws Exception {
    return Long.parseLong(Files.readString(home.resolve("run/" + name + ".pid")).trim().split("\\s+")[0]);
  }

  private record Run(int code, String out, String err) {}

  private final List<Path> outputs = new ArrayList<>();

  private Process start(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = Cli.command(args);
    Path out = Files.createTempFile(home, "out", ".txt");
    Path err = Files.createTempFile(home, "err", ".txt");
    outputs.clear();
    outputs.addAll(List.of(out, err));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("TIDEMARK_"));
    pb.environment().putAll(env);
    return pb.start();
  }

  private Run await(Process p) throws Exception {
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("tidemark hung for " + TIMEOUT_SECONDS + " s");
    }
    return new Run(p.exitValue(), Files.readString(outputs.get(0), StandardCharsets.UTF_8),
        Files.readString(outputs.get(1), StandardCharsets.UTF_8));
  }
}
