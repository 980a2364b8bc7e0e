package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Feed;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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
  void missingSourceMissingTableWrongSchema() {
    String source = stack.landing("bad").land(SeedScenarios.COUNTS.arrivals()).source(Feed.EVENTS);
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
        "table " + ns + ".missing does not exist; run: tidemark bootstrap (or check --table)", cp, main);

    assertRefused(Cli.run(stack.env(), "stream", "windowed-counts", "--source", source,
            "--table", ns + ".wrong", "--checkpoint", cp.toString()),
        "table " + ns + ".wrong: column w_start is STRING, expected TIMESTAMP; rename or drop the table, then run: "
            + "tidemark bootstrap", cp, main);

    assertRefused(Cli.run(stack.env(), "stream", "dedup", "--source", source, "--table", "not a table",
            "--checkpoint", cp.toString()),
        "--table: expected namespace.table, got 'not a table'", cp, main);

    Cli.Result badDelay = Cli.run(stack.env(), "stream", "windowed-counts", "--counts-watermark", "ten minutes",
        "--source", source, "--table", ns + ".good", "--checkpoint", cp.toString());
    assertThat(badDelay.exitCode()).isEqualTo(2);
    assertRefused(badDelay, "TIDEMARK_COUNTS_WATERMARK (--counts-watermark): expected a duration such as "
        + "'10 minutes', '30 seconds' or '1 hour', got 'ten minutes'", cp, main);
  }
}
