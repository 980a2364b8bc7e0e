package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.land.SeedScenarios;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.projectnessie.model.Branch;

/** Wrong options stop a stream before it starts: one line, non-zero exit, no checkpoint, no commit. */
class BadStreamOptionsIT extends StackTest {
  BadStreamOptionsIT() {
    super("badopts");
  }

  private void assertRefused(Cli.Result r, String message, Path checkpoint, String mainBefore) {
    assertThat(r.exitCode()).as("%s", r).isNotZero();
    assertThat(r.errLines()).as("%s", r).containsExactly("tidemark: " + message);
    assertThat(checkpoint).as("no checkpoint was created").doesNotExist();
    assertThat(stack.nessie().hash(stack.config().nessieRef())).as("nothing was committed").isEqualTo(mainBefore);
  }

  @Test
  void missingSourceMissingTableWrongSchema() throws Exception {
    String source = stack.landing("bad").land(SeedScenarios.COUNTS.arrivals()).source(SeedScenarios.EVENTS);
    String ns = fx.namespace();
    stack.spark().sql("CREATE TABLE " + ns + ".wrong (company_id STRING, w_start STRING, n BIGINT) USING iceberg");
    fx.counts("good");
    Path cp = tmp.resolve("cp");
    String main = stack.nessie().hash(stack.config().nessieRef());

    assertRefused(Cli.run(stack.env(), "stream", "windowed-counts", "--source", tmp.resolve("nowhere").toString(),
            "--table", ns + ".good", "--checkpoint", cp.toString()),
        "source " + tmp.resolve("nowhere") + " does not exist (nothing landed there yet?); check --source", cp, main);

    assertRefused(Cli.run(stack.env(), "stream", "windowed-counts", "--source", source,
            "--table", ns + ".missing", "--checkpoint", cp.toString()),
        "table " + ns + ".missing does not exist on " + stack.config().nessieRef()
            + "; run: tidemark bootstrap (or check --table)", cp, main);

    assertRefused(Cli.run(stack.env(), "stream", "windowed-counts", "--source", source,
            "--table", ns + ".wrong", "--checkpoint", cp.toString()),
        "table " + ns + ".wrong: column w_start is STRING, expected TIMESTAMP; rename or drop the table, then run: "
            + "tidemark bootstrap", cp, main);

    assertRefused(Cli.run(stack.env(), "stream", "dedup", "--source", source, "--table", "not a table",
            "--checkpoint", cp.toString()),
        "--table: expected namespace.table, got 'not a table'", cp, main);

    // the counts' watermark is the pipeline file's: a bad one stops the stream as a bad setting does
    String seed;
    try (java.io.InputStream in = PipelineFile.class.getResourceAsStream(PipelineFile.SEED_RESOURCE)) {
      seed = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    String good = "watermark: 10 minutes";
    assertThat(seed).as("the seed's counts watermark").containsOnlyOnce(good);
    Path file = Files.writeString(tmp.resolve("pipeline.yml"), seed.replace(good, "watermark: ten minutes"));
    int line = seed.substring(0, seed.indexOf(good)).split("\n", -1).length;
    Map<String, String> env = new java.util.HashMap<>(stack.env());
    env.put(Setting.PIPELINE.env(), file.toString());
    Cli.Result badDelay = Cli.run(env, "stream", "windowed-counts", "--source", source, "--table", ns + ".good",
        "--checkpoint", cp.toString());
    assertThat(badDelay.exitCode()).isEqualTo(2);
    assertRefused(badDelay, file + ":" + line + ": facts[events].aggregates[windowed-counts].watermark: expected a "
        + "duration such as '10 minutes', '30 seconds', '1 hour' or '1 day', got 'ten minutes'", cp, main);
  }

  /**
   * A staging branch that lacks a table readers have (made from an older commit, or the table dropped there by hand):
   * said so, for bootstrap would make a second table of that name, which could never be published.
   */
  @Test
  void aTableOnThePublishedBranchButNotOnTheStagingBranchIsSaidSo() {
    String source = stack.landing("bad2").land(SeedScenarios.COUNTS.arrivals()).source(SeedScenarios.EVENTS);
    String ns = fx.namespace();
    String staging = stack.config().nessieRef();
    String before = stack.nessie().hash(staging);
    fx.counts("readers");
    String lagging = TestStack.unique("lagging");
    try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
      refs.createBranch(lagging, Branch.of(staging, before));
      try {
        Path cp = tmp.resolve("cp2");
        Map<String, String> env = stack.env(stack.config().with(Map.of(Setting.NESSIE_REF, staging,
            Setting.STAGING_BRANCH, lagging)));
        assertRefused(Cli.run(env, "stream", "windowed-counts", "--source", source, "--table", ns + ".readers",
                "--checkpoint", cp.toString()),
            "table " + ns + ".readers is on " + staging + " but not on the staging branch " + lagging + ", where the "
                + "streams write; see docs/troubleshooting.md#a-table-missing-on-the-staging-branch", cp,
            stack.nessie().hash(staging));
        assertThat(stack.nessie().hash(lagging)).as("nothing committed on the staging branch").isEqualTo(before);
      } finally {
        refs.deleteBranch(lagging);
      }
    }
  }
}
