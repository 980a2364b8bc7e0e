package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EarlyLoadTest {
  @Test
  void aFailedEarlyLoadIsLoadedAgainOnceForEveryCaller() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    CountDownLatch failed = new CountDownLatch(1);
    EarlyLoad<String> table = new EarlyLoad<>("t", () -> {
      if (loads.incrementAndGet() == 1) {
        failed.countDown();
        throw new IllegalStateException("catalog out of reach");
      }
      return "table";
    });
    failed.await();
    assertThat(table.get()).isEqualTo("table");
    assertThat(table.get()).isEqualTo("table");
    assertThat(loads).as("the early load, then one again").hasValue(2);
  }

  @Test
  void callersNeverShareOneFailure() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    EarlyLoad<String> table = new EarlyLoad<>("t", () -> {
      throw new IllegalStateException("out of reach, load " + loads.incrementAndGet());
    });
    Throwable first = catchThrowable(table::get);
    Throwable second = catchThrowable(table::get);
    // the same object twice is what made Throwable.addSuppressed throw "Self-suppression not permitted"
    assertThat(first).isNotNull().isNotSameAs(second);
    assertThat(second).isNotNull();
    first.addSuppressed(second);
    assertThat(first.getSuppressed()).containsExactly(second);
  }

  @Test
  void aSuccessfulEarlyLoadIsLoadedOnce() {
    AtomicInteger loads = new AtomicInteger();
    EarlyLoad<Integer> table = new EarlyLoad<>("t", loads::incrementAndGet);
    assertThat(table.get()).isEqualTo(1);
    assertThat(table.get()).isEqualTo(1);
    assertThat(loads).hasValue(1);
  }
}
