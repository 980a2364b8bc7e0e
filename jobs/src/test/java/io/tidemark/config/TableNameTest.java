package io.tidemark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TableNameTest {

  @Test
  void parsesAndQuotes() {
    TableName t = TableName.parse("facts.event_counts");
    assertThat(t.namespace()).isEqualTo("facts");
    assertThat(t.table()).isEqualTo("event_counts");
    assertThat(t.sql()).isEqualTo("`facts`.`event_counts`");
    assertThat(t).hasToString("facts.event_counts");
    assertThat(t.sqlAt("ingest")).isEqualTo("`facts`.`event_counts@ingest`");
    assertThat(t.sqlAt("ingest", "1a2b3c4d")).isEqualTo("`facts`.`event_counts@ingest#1a2b3c4d`");
    assertThatThrownBy(() -> t.sqlAt("ingest", "HEAD~1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> t.sqlAt("in`gest", "1a2b3c4d")).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"events", "a.b.c", "facts.", ".events", "facts.1events", "facts.ev`ents",
      "facts.events;drop", "facts.ev ents", "fäcts.events", "facts.events--"})
  void rejectsWhatIsNotAPlainIdentifier(String text) {
    assertThatThrownBy(() -> TableName.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void identifiers() {
    assertThat(TableName.isIdentifier("_x1")).isTrue();
    assertThat(TableName.isIdentifier("x".repeat(128))).isTrue();
    assertThat(TableName.isIdentifier("x".repeat(129))).isFalse();
    assertThat(TableName.isIdentifier("1x")).isFalse();
    assertThat(TableName.isIdentifier(null)).isFalse();
  }
}
