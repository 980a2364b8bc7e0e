package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `bench expectations` runs end to end on tiny sizes and prints its table (timings unchecked): each arrival of each
 * variant streamed, every event judged by the five rules' pipeline, on Nessie branches of its own that it deletes at
 * the end.
 */
class ExpectationsBenchIT extends StackTest {
  @Test
  void benchExpectationsStreamsBothVariantsArrivalByArrival() {
    String mainBefore = stack.nessie().hash(stack.config().publishedRef());
    String ingestBefore = stack.nessie().hash(stack.config().stagingBranch());
    Cli.Result r = Cli.run(stack.env(), "bench", "expectations", "--events", "200", "--arrivals", "2", "--rounds",
        "1", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.errLines()).as("%s", r).isEmpty();
    for (String variant : new String[] {"none", "five"}) {
      for (int k = 1; k <= 2; k++) {
        assertThat(r.out()).as("%s", r.out())
            .containsPattern("(?m)^1\\s+" + k + "\\s+" + variant + "\\s+200\\s+[\\d.]+$");
      }
    }
    assertThat(r.out()).contains("round 1: the record of five holds 400 row(s) judged by amount_not_negative")
        .containsPattern("five row expectations cost stream all [-+][\\d.]+% of its time without any "
            + "\\(ratio [\\d.]+\\)");

    Matcher branches = Pattern.compile("branches: staging (\\S+), published (\\S+)").matcher(r.out());
    assertThat(branches.find()).as("%s", r.out()).isTrue();
    assertThat(stack.nessie().exists(branches.group(1))).isFalse();
    assertThat(stack.nessie().exists(branches.group(2))).isFalse();
    assertThat(stack.nessie().hash(stack.config().publishedRef())).isEqualTo(mainBefore);
    assertThat(stack.nessie().hash(stack.config().stagingBranch())).isEqualTo(ingestBefore);
  }
}
