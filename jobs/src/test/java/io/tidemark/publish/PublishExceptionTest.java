package io.tidemark.publish;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PublishExceptionTest {
  @Test
  void aMessageIsOneLine() {
    assertThat(new PublishException("publish refused: check x failed:\n  a row\r\n  another\n").getMessage())
        .isEqualTo("publish refused: check x failed: a row another");
  }

  @Test
  void aDetailIsCappedOnOneLine() {
    String detail = "line 1\n" + "x".repeat(500);
    String capped = PublishException.capped(detail, 100);
    assertThat(capped).hasSize(100).startsWith("line 1 xxx").endsWith("...").doesNotContain("\n");
    assertThat(PublishException.capped("short\ndetail", 100)).isEqualTo("short detail");
  }
}
