package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** {@link Steps}: the steps run in their order (not their names'), on one instance. */
@Steps
class StepsTest {
  private final List<String> done = new ArrayList<>();

  @Test
  @Order(3)
  void checksLast() {
    assertThat(done).containsExactly("lands", "runs");
  }

  @Test
  @Order(1)
  void landsFirst() {
    assertThat(done).isEmpty();
    done.add("lands");
  }

  @Test
  @Order(2)
  void runsSecond() {
    assertThat(done).containsExactly("lands");
    done.add("runs");
  }
}
