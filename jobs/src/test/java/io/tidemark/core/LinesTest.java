package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LinesTest {
  private static long lines(String text) {
    return Lines.count(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aLastLineWithoutItsNewlineCountsAndAnEmptyFileHasNone() {
    assertThat(lines("")).isZero();
    assertThat(lines("a")).isEqualTo(1);
    assertThat(lines("a\n")).isEqualTo(1);
    assertThat(lines("a\nb")).isEqualTo(2);
    assertThat(lines("\n\n")).as("blank lines are lines, which the quarantine keeps").isEqualTo(2);
    assertThat(lines("a\r\nb\r\n")).isEqualTo(2);
  }

  @Test
  void anAccountBalancesWhenEveryLineIsArchivedOrQuarantined() {
    assertThat(new Lines.Account(5, 4, 1).balanced()).isTrue();
    assertThat(new Lines.Account(5, 4, 0).balanced()).isFalse();
    assertThat(new Lines.Account(5, 4, 2).balanced()).as("a line counted twice").isFalse();
  }
}
