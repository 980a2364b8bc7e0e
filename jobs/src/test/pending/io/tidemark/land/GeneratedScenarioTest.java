package io.tidemark.land;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.land.SeedScenarios;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GeneratedScenarioTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static GeneratorSpec spec(long seed) {
    return new GeneratorSpec(seed, 20_000, 15, 0.05, 0.02, 2, 0.02, 6, 3_000, 200,
        GeneratorSpec.DEFAULT_START, 60);
  }

  @Test
  void sameSeedGivesByteIdenticalFiles() {
    List<Arrival> a = new GeneratedScenario(spec(7)).arrivals();
    List<Arrival> b = new GeneratedScenario(spec(7)).arrivals();
    assertThat(a).hasSize(6);
    for (int k = 0; k < a.size(); k++) {
      assertThat(a.get(k).files()).hasSameSizeAs(b.get(k).files());
      for (int f = 0; f < a.get(k).files().size(); f++) {
        LandingFile x = a.get(k).files().get(f);
        LandingFile y = b.get(k).files().get(f);
        assertThat(x.name()).isEqualTo(y.name());
        assertThat(x.content()).as("arrival %d file %s", k + 1, x.name()).isEqualTo(y.content());
      }
    }
  }

  @Test
  void anotherSeedOrSpecGivesOtherFiles() {
    LandingFile a = new GeneratedScenario(spec(7)).arrivals().get(0).files().get(0);
    LandingFile b = new GeneratedScenario(spec(8)).arrivals().get(0).files().get(0);
    assertThat(a.content()).isNotEqualTo(b.content());
    assertThat(a.name()).as("the file name follows the spec, so specs never collide in the landing zone")
        .isNotEqualTo(b.name()).matches("generated-[0-9a-f]{8}\\.jsonl");
  }

  /** Parses every event line; the malformed ones are counted, the valid ones checked. */
  @Test
  void eventsHaveDuplicatesLateJumpsAndMalformedLines() throws Exception {
    GeneratorSpec spec = spec(11);
    Set<Integer> distinct = new HashSet<>();
    Map<Integer, String> firstLine = new HashMap<>();
    int lines = 0;
    int duplicates = 0;
    int malformed = 0;
    int late = 0;
    int farFuture = 0;
    long prevArrivalEnd = 0;
    for (Arrival a : new GeneratedScenario(spec).arrivals()) {
      long arrivalStart = spec.start().getEpochSecond() + (a.number() - 1) * 3600L;
      for (String line : lines(a, SeedScenarios.EVENTS)) {
        lines++;
        JsonNode n = parse(line);
        if (n == null || !n.path("event_id").isInt() || !n.hasNonNull("event_ts")
            || !n.path("event_ts").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")) {
          malformed++;
          continue;
        }
        int id = n.get("event_id").asInt();
        if (!distinct.add(id)) {
          duplicates++;
          assertThat(line).as("a duplicate is a redelivery of the same line").isEqualTo(firstLine.get(id));
          continue;
        }
        firstLine.put(id, line);
        long t = Instant.parse(n.get("event_ts").asText()).getEpochSecond();
        if (t < arrivalStart - 10 * 60) {
          late++;
        }
        if (t >= arrivalStart + 3600 + 30 * 60) {
          farFuture++;
        }
        assertThat(n.get("company_id").asText()).matches("c([1-9]|1[0-5])");
        assertThat(line).as("amounts keep two decimals").containsPattern("\"amount\":\\d+\\.\\d\\d,");
      }
      prevArrivalEnd = arrivalStart + 3600;
    }
    assertThat(prevArrivalEnd).isPositive();
    assertThat(distinct).as("distinct valid events").hasSize(spec.events());
    assertThat(distinct).as("ids are 1..events").allMatch(id -> id >= 1 && id <= spec.events());
    assertThat(duplicates).as("duplicates ~5%% of 20k").isBetween(700, 1300);
    assertThat(malformed).as("malformed ~2%% of valid lines").isBetween(250, 600);
    // late = older than its arrival's start by more than the watermark delay: surely late, not all late ones
    assertThat(late).as("late ~2%% of 20k, some of them before their arrival's start").isBetween(150, 600);
    assertThat(farFuture).as("far-future jumps").isEqualTo(spec.jumps());
    assertThat(lines).isEqualTo(spec.events() + duplicates + malformed);
  }

  @Test
  void changesHaveRepeatsDeletesAndOutOfOrderOnes() throws Exception {
    GeneratorSpec spec = spec(3);
    int changes = 0;
    int deletes = 0;
    int malformed = 0;
    Set<String> keys = new HashSet<>();
    for (Arrival a : new GeneratedScenario(spec).arrivals()) {
      for (String line : lines(a, SeedScenarios.COMPANIES)) {
        JsonNode n = parse(line);
        if (n == null || !n.hasNonNull("company_id") || !n.path("change_ts").asText().endsWith("Z")) {
          malformed++;
          continue;
        }
        changes++;
        keys.add(n.get("company_id").asText());
        if (n.path("deleted").asBoolean(false)) {
          deletes++;
        } else {
          assertThat(n.get("tier").asText()).isIn("bronze", "silver", "gold", "platinum");
        }
      }
    }
    assertThat(changes).isEqualTo(spec.changes());
    assertThat(keys.size()).isBetween(150, 200);
    assertThat(deletes).isPositive();
    assertThat(malformed).isPositive();
  }

  @Test
  void noChangesNoCompanyFiles() {
    GeneratorSpec spec = GeneratorSpec.defaults();
    for (Arrival a : new GeneratedScenario(spec).arrivals()) {
      assertThat(a.files()).extracting(LandingFile::dataset).containsExactly(SeedScenarios.EVENTS);
    }
  }

  @Test
  void badSpecsAreRefused() {
    assertThatThrownBy(() -> new GeneratorSpec(1, 10, 1, 1.5, 0, 0, 0, 1, 0, 1, GeneratorSpec.DEFAULT_START, 60))
        .hasMessageContaining("duplicate rate");
    assertThatThrownBy(() -> new GeneratorSpec(1, 10, 1, 0, 0, 0, 0, 0, 0, 1, GeneratorSpec.DEFAULT_START, 60))
        .hasMessageContaining("arrivals");
  }

  private static List<String> lines(Arrival a, Feed d) {
    List<String> out = new ArrayList<>();
    for (LandingFile f : a.files()) {
      if (f.dataset() == d) {
        String text = new String(f.content(), StandardCharsets.UTF_8);
        assertThat(text).endsWith("\n");
        out.addAll(List.of(text.split("\n")));
      }
    }
    return out;
  }

  private static JsonNode parse(String line) {
    try {
      JsonNode n = JSON.readTree(line);
      return n != null && n.isObject() ? n : null;
    } catch (Exception e) {
      return null;
    }
  }
}
