package io.tidemark.report;

import io.tidemark.testing.Seed;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.KeySurvey;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeysTableTest {
  @Test
  void eachKeyWithItsFirstArrivalAndHowOftenItCame() {
    KeySurvey s = new KeySurvey(Seed.EVENTS);
    s.add(3, "{\"region\":\"eu\"}", 4);
    s.add(5, "{\"region\":\"us\",\"amount\":\"<x>\"}", 1);
    String html = PipelineReport.keysTable(s.findings());
    assertThat(html).contains("<td>events</td><td>region</td><td>5</td><td>3</td><td>2</td>")
        .contains("<td>events</td><td>amount</td><td>1</td><td>5</td><td>1</td><td>events.amount: type drift")
        .as("escaped").contains("e.g. &quot;&lt;x&gt;&quot;").doesNotContain("<x>");
    assertThat(html.indexOf("region")).as("in the order they first came").isLessThan(html.indexOf("amount"));
  }

  @Test
  void noRescuedDataSaysSo() {
    assertThat(PipelineReport.keysTable(List.of())).contains("no rescued data").doesNotContain("<table>");
  }
}
