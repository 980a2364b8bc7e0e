package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyAccountTest {
  private static final String LINE = "{\"event_id\":1,\"amount\":\"x\",\"region\":\"eu\",\"note\":null,"
      + "\"event_ts\":\"2026-01-01T00:00:00Z\"}";

  @Test
  void everyKeyWithAValueIsTypedRescuedOrQuarantined() {
    KeyAccount a = new KeyAccount();
    a.landedFile((LINE + "\r\nnot json\n{\"event_ts\":\"2026-01-01T00:00:00Z\"}\n").getBytes(StandardCharsets.UTF_8));
    a.archived(List.of("event_id", "event_ts"), "{\"amount\":\"x\",\"region\":\"eu\",\"note\":null}");
    a.quarantined("not json");
    a.quarantined("{\"event_ts\":\"2026-01-01T00:00:00Z\"}");
    assertThat(a.unbalanced()).isEmpty();
    assertThat(a.landedValues()).as("event_id, amount, region, event_ts; event_ts").isEqualTo(5);
  }

  @Test
  void aValueDroppedOrKeptTwiceIsNamed() {
    KeyAccount dropped = new KeyAccount();
    dropped.landed(LINE);
    dropped.archived(List.of("event_id", "event_ts"), "{\"amount\":\"x\"}");
    assertThat(dropped.unbalanced()).containsExactly("key region: 1 value(s) landed, 0 kept");

    KeyAccount twice = new KeyAccount();
    twice.landed(LINE);
    twice.archived(List.of("event_id", "event_ts", "region"), "{\"amount\":\"x\",\"region\":\"eu\"}");
    assertThat(twice.unbalanced()).containsExactly("key region: 1 value(s) landed, 2 kept");
  }
}
