package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class KeyTextTest {
  @Test
  void aLinesValueAndTheTablesOfTheSameKeyReadAlike() {
    Type price = Type.decimal(10, 2);
    assertThat(KeyText.ofLine(price, "12.5")).isEqualTo(KeyText.ofTable(price, new BigDecimal("12.50")));
    assertThat(KeyText.ofLine(Type.TIMESTAMP, "2026-01-01T05:00:00.000Z")).isEqualTo(KeyText.ofTable(Type.TIMESTAMP,
        OffsetDateTime.of(2026, 1, 1, 5, 0, 0, 0, ZoneOffset.UTC)));
    assertThat(KeyText.ofLine(Type.TIMESTAMP, "2026-01-01T05:00:00Z")).isEqualTo(KeyText.ofTable(Type.TIMESTAMP,
        LocalDateTime.of(2026, 1, 1, 5, 0)));
    assertThat(KeyText.ofLine(Type.DATE, "2026-01-02")).isEqualTo(KeyText.ofTable(Type.DATE, LocalDate.of(2026, 1, 2)));
    assertThat(KeyText.ofLine(Type.BIGINT, "7")).isEqualTo(KeyText.ofTable(Type.BIGINT, 7L));
    assertThat(KeyText.ofLine(Type.STRING, "o41")).isEqualTo(KeyText.ofTable(Type.STRING, "o41"));
  }

  @Test
  void textTheTypeDoesNotReadIsKeptAndNullStaysNull() {
    assertThat(KeyText.ofLine(Type.INT, "seven")).isEqualTo("seven");
    assertThat(KeyText.ofLine(Type.DATE, null)).isNull();
    assertThat(KeyText.ofTable(Type.DATE, null)).isNull();
  }

  @Test
  void differentKeysStayDifferent() {
    assertThat(KeyText.ofLine(Type.decimal(10, 2), "12.51")).isNotEqualTo(KeyText.ofTable(Type.decimal(10, 2),
        new BigDecimal("12.50")));
  }
}
