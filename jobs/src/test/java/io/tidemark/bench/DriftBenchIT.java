package io.tidemark.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * `bench drift` runs end to end on tiny sizes and prints its tables (timings unchecked): the rescued data's cost on
 * lines that rescue nothing, and promotions whose rows backfilled are the rows that carried the key, on Nessie
 * branches of its own that it deletes at the end.
 */
class DriftBenchIT extends StackTest {
  @Test
  void benchDriftPrintsTheRescuesCostAndPromotionsThatBackfillEveryCarrier() {
    String mainBefore = stack.nessie().hash(stack.config().publishedRef());
    String ingestBefore = stack.nessie().hash(stack.config().stagingBranch());
    Cli.Result r = Cli.run(stack.env(), "bench", "drift", "--lines", "2000", "--rounds", "2", "--history", "30",
        "--factor", "3", "--carrying", "0.5", "--out", tmp.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.errLines()).as("%s", r).isEmpty();
    assertThat(r.out())
        .contains("the raw stream's conversion of 2000 lines with no unknown key (0 of them rescued anything)")
        .containsPattern("without the rescued data\\s+[\\d.]+\\s+\\d+")
        .containsPattern("with the rescued data\\s+[\\d.]+\\s+\\d+")
        .containsPattern("the rescued data costs the conversion [\\d.]+x its time without")
        .containsPattern("the promotion at 3x the history took [\\d.]+x its time at 1x")
        .containsPattern("the rescued data's conversion cost at the rate measured above, over the 90 lines of this "
            + "stream all: -?[\\d.]+ s, -?[\\d.]+% of its [\\d.]+ s");
    // every second event carries the key: 15 of 30, 45 of 90, and each one backfilled
    Matcher rows = Pattern.compile("(?m)^(1x|3x)\\s+(\\d+)\\s+[\\d.]+\\s+(\\d+)\\s+(\\d+)\\s+[\\d.]+\\s+[\\d.]+$")
        .matcher(r.out());
    int found = 0;
    while (rows.find()) {
      found++;
      long events = Long.parseLong(rows.group(2));
      assertThat(Long.parseLong(rows.group(3))).as("carriers of %s", rows.group(1)).isEqualTo(events / 2);
      assertThat(rows.group(4)).as("backfilled at %s", rows.group(1)).isEqualTo(rows.group(3));
    }
    assertThat(found).as("%s", r.out()).isEqualTo(2);

    Matcher branches = Pattern.compile("branches: staging (\\S+), published (\\S+)").matcher(r.out());
    assertThat(branches.find()).as("%s", r.out()).isTrue();
    assertThat(stack.nessie().exists(branches.group(1))).isFalse();
    assertThat(stack.nessie().exists(branches.group(2))).isFalse();
    assertThat(stack.nessie().hash(stack.config().publishedRef())).isEqualTo(mainBefore);
    assertThat(stack.nessie().hash(stack.config().stagingBranch())).isEqualTo(ingestBefore);
  }
}
