package io.tidemark.land;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SeedScenariosTest {

  @Test
  void seedIsTheUnionOfTheThreeStories() {
    Scenario seed = SeedScenarios.ALL;
    assertThat(seed.arrivals()).hasSize(4);
    assertThat(seed.arrivals().get(0).files()).extracting(LandingFile::name)
        .containsExactly("seed-counts.jsonl", "seed-dedup.jsonl", "seed-scd2.jsonl");
    long lines = seed.arrivals().stream().flatMap(a -> a.files().stream()).mapToLong(LandingFile::lines).sum();
    long parts = 0;
    for (Scenario s : new Scenario[] {SeedScenarios.COUNTS, SeedScenarios.DEDUP, SeedScenarios.SCD2}) {
      parts += s.arrivals().stream().flatMap(a -> a.files().stream()).mapToLong(LandingFile::lines).sum();
    }
    assertThat(lines).isEqualTo(parts).isEqualTo(7 + 10 + 11);
  }

  @Test
  void eventIdsOfCountsAndDedupDoNotOverlap() {
    Set<String> counts = ids(SeedScenarios.COUNTS);
    Set<String> dedup = ids(SeedScenarios.DEDUP);
    assertThat(counts).doesNotContainAnyElementsOf(dedup);
    assertThat(dedup).as("6 distinct ids behind 10 lines").hasSize(6);
  }

  private static Set<String> ids(Scenario s) {
    Set<String> ids = new HashSet<>();
    for (Arrival a : s.arrivals()) {
      for (LandingFile f : a.files()) {
        for (String line : new String(f.content(), StandardCharsets.UTF_8).split("\n")) {
          ids.add(line.replaceAll(".*\"event_id\":(\\d+).*", "$1"));
        }
      }
    }
    return ids;
  }
}
