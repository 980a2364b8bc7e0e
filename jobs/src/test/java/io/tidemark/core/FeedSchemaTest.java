package io.tidemark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.testing.Seed;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FeedSchemaTest {
  @Test
  void everyTableThatKeepsAFeedTakesItsColumnsFromTheDeclaration() {
    assertThat(TableSchemas.raw(Seed.EVENTS).columns().columns()).startsWith(Seed.EVENTS.columns().columns()
        .toArray(new Column[0])).endsWith(Ingest.SCHEMA.columns().toArray(new Column[0]));
    assertThat(TableSchemas.deduplicated(Seed.EVENTS, Seed.EVENTS_FEED.dedupWatermark()).columns())
        .isEqualTo(Seed.EVENTS.columns());
    assertThat(TableSchemas.raw(Seed.CHANGES).columns().columns()).startsWith(Seed.CHANGES.columns()
        .columns().toArray(new Column[0]));
    assertThat(TableSchemas.changeLog(Seed.COMPANIES).columns()).isEqualTo(Seed.CHANGES.columns());
    assertThat(Seed.COMPANIES.version().columns()).startsWith(Seed.CHANGES.key().get(0), Seed.NAME, Seed.TIER);
    assertThat(Seed.COUNTS.schema().columns()).startsWith(Seed.COMPANY_ID);
    assertThat(TableSchemas.deduplicated(Seed.EVENTS, Duration.ofMinutes(30)).partitioning())
        .containsExactly("days(" + Seed.EVENTS.eventTime() + ")");
  }

  @Test
  void aFeedsKeyAndEventTimeAreRequiredColumnsOfIt() {
    Column id = Column.of("id", Type.INT);
    Column at = Column.of("at", Type.TIMESTAMP);
    Column other = Column.of("other", Type.STRING);
    Schema columns = Schema.of(id, at, other);
    assertThat(new FeedSchema("f", columns, id, at, List.of(id, at)).isRequired(other)).isFalse();
    assertThatThrownBy(() -> new FeedSchema("f", columns, id, at, List.of(id))).hasMessageContaining("at");
    assertThatThrownBy(() -> new FeedSchema("f", columns, List.of(id, other), at, List.of(id, at)))
        .as("each column of a composite key").hasMessageContaining("other must be a required column");
    assertThatThrownBy(() -> new FeedSchema("f", columns, List.of(), at, List.of(id, at)))
        .hasMessageContaining("a key of one column or more");
    assertThatThrownBy(() -> new FeedSchema("f", columns, id, other, List.of(id, other)))
        .hasMessageContaining("TIMESTAMP");
    assertThatThrownBy(() -> Schema.of(id, id)).hasMessageContaining("named twice");
  }

  @Test
  void aCompositeKeysValuesAreReadInTheKeysOrder() {
    Column shop = Column.of("shop", Type.STRING);
    Column day = Column.of("day", Type.DATE);
    Column at = Column.of("at", Type.TIMESTAMP);
    FeedSchema f = new FeedSchema("f", Schema.of(shop, at, day), List.of(day, shop), at, List.of(shop, day, at));
    java.util.Map<String, Object> row = java.util.Map.of("shop", "s1", "day", java.time.LocalDate.of(1969, 7, 20),
        "at", java.time.Instant.EPOCH);
    assertThat(f.keyOf(row::get)).containsExactly(java.time.LocalDate.of(1969, 7, 20), "s1");
    assertThat(f.keyList()).isEqualTo("day, shop");
    assertThat(TableSchemas.deduplicated(f, Duration.ofHours(1)).comment()).contains("deduplicated on day, shop");
  }

  @Test
  void aSchemaIsTheDdlSparkParses() {
    assertThat(Seed.EVENTS.columns().ddl()).isEqualTo("event_id INT, company_id STRING, amount DOUBLE, "
        + "event_ts TIMESTAMP");
    assertThat(Schema.of(BatchColumns.ROWS_WRITTEN, BatchColumns.REPLAYED_TABLES).ddl())
        .isEqualTo("rows_written MAP<STRING, BIGINT>, replayed_tables ARRAY<STRING>");
    assertThat(Schema.of(Column.of("p", Type.decimal(12, 3)), Column.of("d", Type.DATE), Column.of("l", Type.BIGINT))
        .ddl()).isEqualTo("p DECIMAL(12,3), d DATE, l BIGINT");
    assertThat(Type.parse("decimal( 12 , 3 )")).isEqualTo(Type.decimal(12, 3)).isNotEqualTo(Type.decimal(12, 2));
    assertThat(Type.parse("long")).isSameAs(Type.BIGINT);
  }
}
