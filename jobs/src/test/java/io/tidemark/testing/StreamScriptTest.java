package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.land.Arrival;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A failed step of a script names itself and the steps before it; the steps run in the order written. */
class StreamScriptTest {
  private final List<Integer> landed = new ArrayList<>();

  @Test
  void aFailedExpectationListsTheStepsAndMarksIt() {
    StreamScript script = StreamScript.of(a -> landed.add(a.number()));
    assertThatThrownBy(() -> script.arrive(new Arrival(1, List.of())).run()
        .expect("two arrivals", s -> assertThat(landed).as("landed").hasSize(2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith(String.format("the stream script failed at step 3:%n"
            + "    1. arrival 1 lands%n    2. the streams run%n=>  3. expect two arrivals%n"))
        .hasMessageContaining("[landed]")
        .cause().isInstanceOf(AssertionError.class);
  }

  @Test
  void eachArrivalLandsRunsAndChecksInTurn() {
    List<String> seen = new ArrayList<>();
    StreamScript script = StreamScript.of(a -> seen.add("land " + a.number()));
    script.eachArrival(List.of(new Arrival(1, List.of()), new Arrival(2, List.of())),
        a -> seen.add("after " + a.number() + ", runs " + script.runs().size()));
    assertThat(seen).containsExactly("land 1", "after 1, runs 1", "land 2", "after 2, runs 2");
  }

  @Test
  void aScriptOfStreamsInThisJvmHasNoCommandToCrash() {
    StreamScript script = StreamScript.of(a -> { });
    assertThatThrownBy(() -> script.crash("raw:after-commit:*")).isInstanceOf(IllegalStateException.class)
        .hasMessage("a script of streams in this JVM has no command to crash, kill or restart");
  }
}
