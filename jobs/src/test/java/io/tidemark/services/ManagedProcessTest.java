package io.tidemark.services;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ManagedProcessTest {
  private static final Instant STARTED = Instant.parse("2026-12-03T09:17:39.120Z");

  @Test
  void aStartPlacedASecondOffAfterAClockCorrectionIsStillOurs() {
    assertThat(ManagedProcess.sameStart(STARTED, STARTED)).isTrue();
    assertThat(ManagedProcess.sameStart(STARTED, STARTED.plusSeconds(1))).isTrue();
    assertThat(ManagedProcess.sameStart(STARTED, STARTED.minusSeconds(1))).isTrue();
  }

  @Test
  void aProcessStartedLaterUnderARecycledPidIsNotOurs() {
    assertThat(ManagedProcess.sameStart(STARTED, STARTED.plusSeconds(60))).isFalse();
    assertThat(ManagedProcess.sameStart(STARTED, STARTED.plusSeconds(3600))).isFalse();
  }
}
