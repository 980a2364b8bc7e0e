package io.tidemark.core;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RescuedTest {
  private static final Rescued.Rule EVENTS = new Rescued.Rule(Seed.EVENTS);
  /** The events' optional fields in order: company_id (bit 0), amount (bit 1). */
  private static final long AMOUNT_NULL = 0b10;
  private static final long BOTH_NULL = 0b11;

  @Test
  void aLineThatFitsTheDeclarationRescuesNothing() {
    assertThat(EVENTS.of("{\"event_id\":1,\"company_id\":\"c1\",\"amount\":2.5,\"event_ts\":\"2026-01-01T00:00:00Z\"}",
        0)).isNull();
    assertThat(EVENTS.of("{\"event_id\":1,\"event_ts\":\"2026-01-01T00:00:00Z\"}", BOTH_NULL))
        .as("absent optional fields").isNull();
    assertThat(EVENTS.of("{\"event_id\":1,\"amount\":null,\"event_ts\":\"2026-01-01T00:00:00Z\"}", BOTH_NULL))
        .as("a declared field sent as null: its column holds that").isNull();
  }

  @Test
  void unknownKeysAreKeptWithTheirJsonValuesInOrder() {
    assertThat(EVENTS.of("{\"event_id\":1,\"region\":\"eu\",\"event_ts\":\"2026-01-01T00:00:00Z\","
        + "\"qty\":1.50,\"tags\":[1, \"a\"],\"meta\":{\"a\": null},\"gone\":null,\"big\":12345678901234567890}",
        BOTH_NULL)).isEqualTo("{\"region\":\"eu\",\"qty\":1.50,\"tags\":[1,\"a\"],\"meta\":{\"a\":null},"
        + "\"gone\":null,\"big\":12345678901234567890}");
  }

  @Test
  void anOptionalFieldThatDidNotConvertIsKeptUnderItsName() {
    String line = "{\"event_id\":1,\"amount\":\"12.5x\",\"event_ts\":\"2026-01-01T00:00:00Z\"}";
    assertThat(EVENTS.of(line, AMOUNT_NULL)).isEqualTo("{\"amount\":\"12.5x\"}");
    assertThat(EVENTS.of(line, 0)).as("converted: its column holds it").isNull();
  }

  @Test
  void aLineAsSparkReadsIt() {
    assertThat(EVENTS.of("{'event_id':1,'event_ts':'2026-01-01T00:00:00Z','region':'e\"u'}", BOTH_NULL))
        .as("single quotes, as Spark allows them").isEqualTo("{\"region\":\"e\\\"u\"}");
    assertThat(EVENTS.of("{\"event_id\":1,\"event_ts\":\"2026-01-01T00:00:00Z\",\"x\":NaN}", BOTH_NULL))
        .as("NaN, kept as a string that Spark reads as a double").isEqualTo("{\"x\":\"NaN\"}");
    assertThat(EVENTS.of("{\"event_id\":1,\"x\":1,\"x\":2,\"event_ts\":\"2026-01-01T00:00:00Z\"} trailing",
        BOTH_NULL)).as("the last of a repeated key; what follows the object ignored").isEqualTo("{\"x\":2}");
    assertThat(EVENTS.of("{\"EVENT_ID\":1,\"event_id\":1,\"event_ts\":\"2026-01-01T00:00:00Z\"}", BOTH_NULL))
        .as("keys are case-sensitive, as Spark's JSON reader matches them").isEqualTo("{\"EVENT_ID\":1}");
    assertThat(EVENTS.of("[1]", 0)).isNull();
    assertThat(EVENTS.of("{\"event_id\":1,", 0)).isNull();
  }

  @Test
  void rescuedDataLosesAKeyOnceAColumnHoldsIt() {
    String r = "{\"region\":\"eu\",\"qty\":3}";
    assertThat(Rescued.without(r, "region")).isEqualTo("{\"qty\":3}");
    assertThat(Rescued.without("{\"region\":\"eu\"}", "region")).isNull();
    assertThat(Rescued.without(r, "other")).isSameAs(r);
    assertThat(Rescued.value(r, "qty")).isEqualTo("3");
    assertThat(Rescued.value(null, "qty")).isNull();
  }

  @Test
  void aFeedAsItsArchiveDeclaresIt() {
    Column region = Column.of("region", Type.STRING);
    Schema archive = Seed.EVENTS.columns().plus(Ingest.SCHEMA).plus(Rescued.DATA, region);
    FeedSchema declared = Seed.EVENTS.declaredBy(archive);
    assertThat(declared.columns().columns()).endsWith(Seed.EVENT_TS, region);
    assertThat(declared.beyond(Seed.EVENTS)).containsExactly(region);
    assertThat(declared.optional()).containsExactly(Seed.COMPANY_ID, Seed.AMOUNT, region);
    assertThat(Seed.EVENTS.declaredBy(Seed.EVENTS.columns().plus(Ingest.SCHEMA))).isEqualTo(Seed.EVENTS);
    Column wide = Column.of("qty", Type.BIGINT);
    assertThat(declared.with(Column.of("qty", Type.INT)).with(wide).columns().column("qty")).isEqualTo(wide);
    assertThat(new Rescued.Rule(declared).of("{\"event_id\":1,\"event_ts\":\"2026-01-01T00:00:00Z\","
        + "\"region\":\"eu\"}", 0)).as("a promoted field is declared").isNull();
  }
}
