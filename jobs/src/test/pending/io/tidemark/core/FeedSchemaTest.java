package io.tidemark.core;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FeedSchemaTest {
  @Test
  void everyTableThatKeepsAFeedTakesItsColumnsFromTheDeclaration() {
    assertThat(TableSchemas.RAW_EVENTS.columns().columns()).startsWith(Seed.EVENTS.columns().columns()
        .toArray(new Column[0])).endsWith(Ingest.SCHEMA.columns().toArray(new Column[0]));
    assertThat(TableSchemas.EVENTS.columns()).isEqualTo(Seed.EVENTS.columns());
    assertThat(TableSchemas.RAW_COMPANY_CHANGES.columns().columns()).startsWith(Seed.CHANGES.columns()
        .columns().toArray(new Column[0]));
    assertThat(TableSchemas.COMPANY_CHANGES.columns()).isEqualTo(Seed.CHANGES.columns());
    assertThat(Seed.COMPANIES.version().columns()).startsWith(Seed.CHANGES.key(), Seed.NAME,
        Seed.TIER);
    assertThat(Seed.COUNTS.schema().columns()).startsWith(Seed.COMPANY_ID);
    assertThat(TableSchemas.EVENTS.partitioning()).containsExactly("days(" + Seed.EVENTS.eventTime() + ")");
  }

  @Test
  void aFeedsKeyAndEventTimeAreRequiredColumnsOfIt() {
    Column id = Column.of("id", Type.INT);
    Column at = Column.of("at", Type.TIMESTAMP);
    Column other = Column.of("other", Type.STRING);
    Schema columns = Schema.of(id, at, other);
    assertThat(new FeedSchema("f", columns, id, at, List.of(id, at)).isRequired(other)).isFalse();
    assertThatThrownBy(() -> new FeedSchema("f", columns, id, at, List.of(id))).hasMessageContaining("at");
    assertThatThrownBy(() -> new FeedSchema("f", columns, id, other, List.of(id, other)))
        .hasMessageContaining("TIMESTAMP");
    assertThatThrownBy(() -> Schema.of(id, id)).hasMessageContaining("named twice");
  }

  @Test
  void aSchemaIsTheDdlSparkParses() {
    assertThat(Seed.EVENTS.columns().ddl()).isEqualTo("event_id INT, company_id STRING, amount DOUBLE, "
        + "event_ts TIMESTAMP");
    assertThat(Schema.of(BatchColumns.ROWS_WRITTEN, BatchColumns.REPLAYED_TABLES).ddl())
        .isEqualTo("rows_written MAP<STRING, BIGINT>, replayed_tables ARRAY<STRING>");
  }
}
