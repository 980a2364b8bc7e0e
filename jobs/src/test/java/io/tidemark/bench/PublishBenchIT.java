package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `bench publish` runs end to end on tiny sizes and prints its tables (numbers unchecked), on Nessie branches of its
 * own that it deletes at the end: the configured staging and published branches never see its commits.
 */
class PublishBenchIT extends StackTest {
  @Test
  void benchPublishPrintsTheGateNextToTheStreamsAndLeavesNoBranch() {
    String mainBefore = stack.nessie().hash(stack.config().publishedRef());
    String ingestBefore = stack.nessie().hash(stack.config().stagingBranch());
    Cli.Result r = Cli.run(stack.env(), "bench", "publish", "--seed-rounds", "1", "--history", "1", "--factor", "2",
        "--measured", "1", "--events-per-arrival", "40", "--changes-per-arrival", "3", "--repeat", "1",
        "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    String s = "\\s+[\\d.]+";
    assertThat(r.out())
        .contains("== seed arrivals, warm JVM: `stream all`, then `publish` of what it staged",
            "== the checks on the same 1 arrival(s) after 1 and after 2 arrivals of history")
        .containsPattern("1\\s+1" + s + s + s + "x" + s + "  nessie \\d+, load \\d+")
        .containsPattern("1\\s+all" + s + s + s + "x\\s+\\(worst arrival [\\d.]+x\\)")
        .containsPattern("history of 2 arrivals in \\d+ s; checks \\(ms\\) of each as it was published: \\d+ \\d+")
        .containsPattern("the checks at 2x the history: [\\d.]+x their time at 1x")
        .containsPattern("all measured arrivals: checks [\\d.]+ s after 1 arrivals, [\\d.]+ s after 2: [\\d.]+x");
    assertThat(r.errLines()).as("%s", r).isEmpty();

    Matcher branches = Pattern.compile("branches: staging (\\S+), published (\\S+)").matcher(r.out());
    assertThat(branches.find()).as("%s", r.out()).isTrue();
    assertThat(branches.group(1)).isNotEqualTo(stack.config().stagingBranch());
    assertThat(stack.nessie().exists(branches.group(1))).isFalse();
    assertThat(stack.nessie().exists(branches.group(2))).isFalse();
    assertThat(stack.nessie().hash(stack.config().publishedRef())).isEqualTo(mainBefore);
    assertThat(stack.nessie().hash(stack.config().stagingBranch())).isEqualTo(ingestBefore);
  }
}
