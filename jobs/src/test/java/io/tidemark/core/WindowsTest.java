package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WindowsTest {
  private final Windows five = new Windows(Duration.ofMinutes(5));

  private static Instant at(String time) {
    return Instant.parse("2026-01-01T" + time + "Z");
  }

  @Test
  void anEventFallsInTheWindowThatStartsAtOrBeforeIt() {
    assertThat(five.start(at("00:07:30"))).isEqualTo(at("00:05:00"));
    assertThat(five.start(at("00:05:00"))).as("a window includes its start").isEqualTo(at("00:05:00"));
    assertThat(five.start(at("00:04:59.999999"))).isEqualTo(at("00:00:00"));
    assertThat(five.end(at("00:05:00"))).isEqualTo(at("00:10:00"));
    // before the epoch the windows keep their alignment, as Spark's window() does
    assertThat(five.start(Instant.parse("1969-12-31T23:58:00Z"))).isEqualTo(Instant.parse("1969-12-31T23:55:00Z"));
  }

  @Test
  void aWindowIsFinalOnceTheWatermarkReachesItsEnd() {
    assertThat(five.isFinal(at("00:05:00"), at("00:09:59"))).isFalse();
    assertThat(five.isFinal(at("00:05:00"), at("00:10:00"))).isTrue();
    assertThat(five.isFinal(at("00:05:00"), null)).as("no watermark yet: nothing is final").isFalse();
  }

  @Test
  void onlyAlignedInstantsStartAWindow() {
    assertThat(five.isStart(at("00:05:00"))).isTrue();
    assertThat(five.isStart(at("00:05:01"))).isFalse();
    assertThatThrownBy(() -> new Windows(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }
}
