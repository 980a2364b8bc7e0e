package io.tidemark.lakehouse.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RefQualifiedNamesTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "SELECT * FROM facts.events@dev|SELECT * FROM facts.`events@dev`",
      "SELECT * FROM nessie.facts.events@main|SELECT * FROM nessie.facts.`events@main`",
      "select n from facts.event_counts@restate-20260101 c where c.n > 1|select n from facts.`event_counts@restate-20260101` c where c.n > 1",
      "SELECT * FROM facts.events@release/1.0#abc123;|SELECT * FROM facts.`events@release/1.0#abc123`;",
      "SELECT * FROM facts.events|SELECT * FROM facts.events",
      "SELECT 'a.b@c' FROM facts.events@dev|SELECT 'a.b@c' FROM facts.`events@dev`",
      "SELECT * FROM facts.`events@dev`|SELECT * FROM facts.`events@dev`",
      "SELECT * FROM a.x@dev JOIN a.y@main ON x.id = y.id|SELECT * FROM a.`x@dev` JOIN a.`y@main` ON x.id = y.id",
  })
  void quotesTheTableAtRef(String in, String out) {
    assertThat(RefQualifiedNames.quote(in)).isEqualTo(out);
  }
}
