package io.tidemark.core;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeySurveyTest {
  private static KeySurvey.Finding only(KeySurvey s, String key) {
    return s.finding(key).orElseThrow();
  }

  @Test
  void eachKeyWithTheArrivalItFirstCameInAndHowOften() {
    KeySurvey s = new KeySurvey(Seed.EVENTS);
    s.add(3, "{\"region\":\"eu\"}");
    s.add(2, "{\"region\":\"us\",\"qty\":1}");
    s.add(5, "{\"region\":null}");
    s.add(5, null);
    KeySurvey.Finding region = only(s, "region");
    assertThat(region.rows()).isEqualTo(3);
    assertThat(region.firstArrival()).isEqualTo(2);
    assertThat(region.lastArrival()).isEqualTo(5);
    assertThat(region.arrivals()).isEqualTo(3);
    assertThat(region.suggested()).isEqualTo(Type.STRING);
    assertThat(region.drift()).isFalse();
    assertThat(region.describe()).contains("events.region", "3 row(s)", "first in arrival 2", "suggested type STRING");
    assertThat(s.findings()).extracting(KeySurvey.Finding::key).containsExactly("qty", "region");
  }

  @Test
  void rowsCountedGroupedAreTheSameAsOneByOne() {
    KeySurvey grouped = new KeySurvey(Seed.EVENTS);
    grouped.add(4, "{\"region\":\"eu\"}", 3);
    grouped.add(2, "{\"region\":7}", 2);
    KeySurvey single = new KeySurvey(Seed.EVENTS);
    for (int i = 0; i < 3; i++) {
      single.add(4, "{\"region\":\"eu\"}");
    }
    single.add(2, "{\"region\":7}");
    single.add(2, "{\"region\":7}");
    assertThat(grouped.findings()).isEqualTo(single.findings());
    assertThat(only(grouped, "region").rows()).isEqualTo(5);
    assertThat(only(grouped, "region").firstArrival()).isEqualTo(2);
  }

  @Test
  void theSuggestedTypeHoldsEveryValue() {
    assertThat(suggested("1", "2")).isEqualTo(Type.INT);
    assertThat(suggested("1", "3000000000")).as("an integer that outgrows an INT").isEqualTo(Type.BIGINT);
    assertThat(suggested("1", "99999999999999999999")).isEqualTo(Type.DOUBLE);
    assertThat(suggested("1", "2.5")).isEqualTo(Type.DOUBLE);
    assertThat(suggested("true", "false", "null")).isEqualTo(Type.BOOLEAN);
    assertThat(suggested("\"2026-01-01T00:00:00Z\"", "\"2026-01-02T10:00:00+02:00\"")).isEqualTo(Type.TIMESTAMP);
    assertThat(suggested("\"2026-01-01T00:00:00Z\"", "\"soon\"")).isEqualTo(Type.STRING);
    assertThat(suggested("1", "\"a\"")).as("a mix of kinds").isEqualTo(Type.STRING);
    assertThat(suggested("{\"a\":1}")).isEqualTo(Type.STRING);
    assertThat(suggested("null")).isEqualTo(Type.STRING);
  }

  private static Type suggested(String... values) {
    KeySurvey s = new KeySurvey(Seed.EVENTS);
    for (String v : values) {
      s.add(1, "{\"k\":" + v + "}");
    }
    return only(s, "k").suggested();
  }

  @Test
  void typeDriftOfADeclaredFieldIsWidenedOnlyWhereIcebergAllowsIt() {
    KeySurvey s = new KeySurvey(Seed.EVENTS);
    s.add(4, "{\"amount\":\"12.5x\"}");
    KeySurvey.Finding amount = only(s, "amount");
    assertThat(amount.drift()).isTrue();
    assertThat(amount.suggested()).as("a DOUBLE holds no string").isNull();
    assertThat(amount.promotable()).isFalse();
    assertThat(amount.describe()).contains("type drift", "not a number", "stay in the rescued data");

    FeedSchema withQty = Seed.EVENTS.with(Column.of("qty", Type.INT));
    KeySurvey q = new KeySurvey(withQty);
    q.add(6, "{\"qty\":3000000000}");
    assertThat(only(q, "qty").suggested()).as("an INT widens to a BIGINT").isEqualTo(Type.BIGINT);
    assertThat(only(q, "qty").describe()).contains("widen to BIGINT");
    q.add(7, "{\"qty\":1.5}");
    assertThat(only(q, "qty").suggested()).as("INT to DOUBLE is no widening Iceberg allows").isNull();
    assertThat(KeySurvey.widens(Type.INT, Type.BIGINT)).isTrue();
    assertThat(KeySurvey.widens(Type.INT, Type.DOUBLE)).isFalse();
  }

  @Test
  void aKeyThatCannotNameAColumnStaysRescued() {
    KeySurvey s = new KeySurvey(Seed.EVENTS);
    s.add(1, "{\"the region\":\"eu\"}");
    assertThat(only(s, "the region").promotable()).isFalse();
    assertThat(List.of(only(s, "the region").describe())).allMatch(d -> d.contains("not a column name"));
  }
}
