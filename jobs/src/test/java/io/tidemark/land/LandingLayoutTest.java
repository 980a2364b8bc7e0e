package io.tidemark.land;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.pipeline.Feed;
import io.tidemark.testing.Seed;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class LandingLayoutTest {
  private static final List<String> FEEDS = Seed.PIPELINE.feeds().stream().map(Feed::name).toList();

  @Test
  void writesFourDigitsUnderTheFeedsDirectory() {
    assertThat(LandingLayout.dir(SeedScenarios.EVENTS, 3)).isEqualTo("events/arrival=0003/");
    assertThat(LandingLayout.path(SeedScenarios.COMPANIES, 1234, "a.jsonl")).isEqualTo("companies/arrival=1234/a.jsonl");
  }

  @Test
  void readsBackWhatItWrites() {
    List<String> feeds = new java.util.ArrayList<>(FEEDS);
    feeds.add("order_lines_2");
    for (String feed : feeds) {
      for (int n : new int[] {1, 42, LandingLayout.MAX_ARRIVAL}) {
        String path = LandingLayout.path(feed, n, "part-1.jsonl");
        assertThat(LandingLayout.parse(path, feeds)).contains(new LandingLayout.Place(feed, n, "part-1.jsonl"));
        assertThat(LandingLayout.arrivalOf("s3a://bucket/prefix/" + path)).isEqualTo(OptionalInt.of(n));
      }
    }
  }

  @Test
  void parsesOnlyTheLayoutsFiles() {
    for (String other : new String[] {"events/arrival=0001/.hidden", "events/arrival=0001/deeper/a.jsonl",
        "orders/arrival=0001/a.jsonl", "events/arrival=1/a.jsonl", "events/a.jsonl", "x/events/arrival=0001/a.jsonl"}) {
      assertThat(LandingLayout.parse(other, FEEDS)).as(other).isEqualTo(Optional.empty());
    }
    assertThat(LandingLayout.parse("orders/arrival=0001/a.jsonl", List.of("orders"))).as("a feed the pipeline declares")
        .contains(new LandingLayout.Place("orders", 1, "a.jsonl"));
    assertThat(LandingLayout.arrivalOf("file:/data/events/part-1.jsonl")).isEmpty();
  }

  @Test
  void theRegexForSparkFindsTheSameNumber() {
    Matcher m = Pattern.compile(LandingLayout.ARRIVAL_DIR_REGEX)
        .matcher("s3a://l/p/" + LandingLayout.path(SeedScenarios.EVENTS, 7, "a.jsonl"));
    assertThat(m.find()).isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(7);
  }

  @Test
  void namesTheFeedsDirectoriesInMessages() {
    assertThat(LandingLayout.feedDirs(FEEDS)).isEqualTo("events/arrival=NNNN/ or companies/arrival=NNNN/");
  }
}
