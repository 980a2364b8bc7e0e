package io.tidemark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CrashHookTest {
  @Test
  void namesOnePointOrEveryPointItStartsWith() {
    assertThat(CrashHook.matches("publish:after-checks", "publish:after-checks")).isTrue();
    assertThat(CrashHook.matches("publish:after-checks", "publish:after-merge")).isFalse();
    assertThat(CrashHook.matches("dedup:after-commit:3", "dedup:after-commit:3")).isTrue();
    assertThat(CrashHook.matches("dedup:after-commit:3", "dedup:after-commit:30")).isFalse();
    assertThat(CrashHook.matches("dedup:after-commit:*", "dedup:after-commit:7")).isTrue();
    assertThat(CrashHook.matches("dedup:after-commit:*", "dedup:before-commit:7")).isFalse();
    assertThat(CrashHook.matches("dedup:after-commit:*", "raw:after-commit:7")).isFalse();
    assertThat(CrashHook.matches(null, "raw:after-commit:7")).isFalse();
    assertThat(CrashHook.matches("", "raw:after-commit:7")).isFalse();
  }
}
