package io.tidemark.land;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.core.Type;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.testing.Seed;
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
    List<Arrival> a = new GeneratedScenario(spec(7), Seed.PIPELINE).arrivals();
    List<Arrival> b = new GeneratedScenario(spec(7), Seed.PIPELINE).arrivals();
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
    LandingFile a = new GeneratedScenario(spec(7), Seed.PIPELINE).arrivals().get(0).files().get(0);
    LandingFile b = new GeneratedScenario(spec(8), Seed.PIPELINE).arrivals().get(0).files().get(0);
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
    int missing = 0;
    long prevArrivalEnd = 0;
    for (Arrival a : new GeneratedScenario(spec, Seed.PIPELINE).arrivals()) {
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
        // an optional field is sometimes missing; when there, a company is one of 15 groups
        if (n.has("company_id")) {
          assertThat(n.get("company_id").asText()).matches("c([1-9]|1[0-5])");
        } else {
          missing++;
        }
        if (n.has("amount")) {
          // a double column's value is written as Java writes the double (12.5, not 12.50): cents, up to 999.99
          assertThat(line).as("amounts are cents").containsPattern("\"amount\":\\d+\\.\\d\\d?,");
          assertThat(n.get("amount").asDouble()).isBetween(0.01, 999.99);
        } else {
          missing++;
        }
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
    assertThat(missing).as("optional fields missing ~2%% of 2 x 20k").isBetween(500, 1100);
    assertThat(lines).isEqualTo(spec.events() + duplicates + malformed);
  }

  @Test
  void changesHaveRepeatsDeletesAndOutOfOrderOnes() throws Exception {
    GeneratorSpec spec = spec(3);
    int changes = 0;
    int deletes = 0;
    int malformed = 0;
    Set<String> keys = new HashSet<>();
    for (Arrival a : new GeneratedScenario(spec, Seed.PIPELINE).arrivals()) {
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
          // an attribute takes one of four states, its column's initial and a number, or the values its
          // feed's rule keeps it in (the seed's tier_in_set): no generated change is held by a rule
          assertThat(n.get("tier").asText()).isIn("bronze", "silver", "gold", "platinum");
          assertThat(n.get("name").asText()).isIn("n1", "n2", "n3", "n4");
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
    for (Arrival a : new GeneratedScenario(spec, Seed.PIPELINE).arrivals()) {
      assertThat(a.files()).extracting(LandingFile::feed).containsExactly(SeedScenarios.EVENTS);
    }
  }

  @Test
  void badSpecsAreRefused() {
    assertThatThrownBy(() -> new GeneratorSpec(1, 10, 1, 1.5, 0, 0, 0, 1, 0, 1, GeneratorSpec.DEFAULT_START, 60))
        .hasMessageContaining("duplicate rate");
    assertThatThrownBy(() -> new GeneratorSpec(1, 10, 1, 0, 0, 0, 0, 0, 0, 1, GeneratorSpec.DEFAULT_START, 60))
        .hasMessageContaining("arrivals");
  }

  private static List<String> lines(Arrival a, String feed) {
    List<String> out = new ArrayList<>();
    for (LandingFile f : a.files()) {
      if (f.feed().equals(feed)) {
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

  /** A pipeline unlike the seed: a composite key, a decimal, a date, a long group, a string delete marker. */
  private static final String ORDERS = String.join("\n",
      "pipeline: orders",
      "facts:",
      "  - name: orders",
      "    columns:",
      "      - {name: shop, type: string, required: true}",
      "      - {name: order_no, type: long, required: true}",
      "      - {name: region, type: long}",
      "      - {name: price, type: 'decimal(9,2)'}",
      "      - {name: day, type: date}",
      "      - {name: placed_at, type: timestamp, required: true}",
      "    key: [shop, order_no]",
      "    event_time: placed_at",
      "    dedup: {watermark: 1 hour}",
      "    aggregates:",
      "      - {name: sales, window: 7 minutes, watermark: 2 minutes, group_by: [region],",
      "         measures: [{name: total, function: sum, column: price}]}",
      "dimensions:",
      "  - name: stores",
      "    columns:",
      "      - {name: shop, type: string, required: true}",
      "      - {name: lane, type: int, required: true}",
      "      - {name: segment, type: string}",
      "      - {name: opened, type: date}",
      "      - {name: changed_at, type: timestamp, required: true}",
      "      - {name: op, type: string}",
      "    key: [shop, lane]",
      "    change_time: changed_at",
      "    attributes: [segment, opened]",
      "    delete: {column: op, value: D}",
      "    watermark: 1 hour",
      "");

  @Test
  void anyPipelineGetsLinesOfItsDeclaredTypesWithCompositeKeysAndItsDeleteMarker() throws Exception {
    Pipeline p = PipelineFile.parse(ORDERS, "orders.yml");
    GeneratorSpec spec = new GeneratorSpec(5, 2_000, 6, 0.05, 0.02, 1, 0.02, 3, 600, 40,
        GeneratorSpec.DEFAULT_START, 60);
    FactFeed orders = p.facts().get(0);
    DimensionFeed stores = p.dimensions().get(0);
    Set<List<String>> keys = new HashSet<>();
    Set<List<String>> storeKeys = new HashSet<>();
    int valid = 0;
    int deletes = 0;
    for (Arrival a : new GeneratedScenario(spec, p).arrivals()) {
      for (String line : lines(a, "orders")) {
        JsonNode n = parse(line);
        if (!convert(n, orders.schema().columns().columns(), orders.schema().required())) {
          continue;
        }
        valid++;
        keys.add(List.of(n.get("shop").asText(), n.get("order_no").asText()));
        if (n.has("region")) {
          assertThat(n.get("region").asLong()).as("a long group takes one of 6 values").isBetween(1L, 6L);
        }
        if (n.has("price")) {
          assertThat(n.get("price").decimalValue().scale()).as(line).isLessThanOrEqualTo(2);
        }
      }
      for (String line : lines(a, "stores")) {
        JsonNode n = parse(line);
        if (!convert(n, stores.schema().columns().columns(), stores.schema().required())) {
          continue;
        }
        storeKeys.add(List.of(n.get("shop").asText(), n.get("lane").asText()));
        if (n.has("op")) {
          assertThat(n.get("op").asText()).as("the marker's value, on a delete only").isEqualTo("D");
          assertThat(n.has("segment") || n.has("opened")).as("a delete carries no attributes").isFalse();
          deletes++;
        } else {
          assertThat(n.get("segment").asText()).isIn("s1", "s2", "s3", "s4");
          assertThat(n.has("opened")).isTrue();
        }
      }
    }
    assertThat(keys).as("one composite key per distinct record").hasSize(spec.events());
    assertThat(keys).extracting(k -> k.get(1)).as("the key's second column spread").hasSizeGreaterThan(1);
    assertThat(valid).isGreaterThan(spec.events());
    assertThat(storeKeys.size()).isBetween(30, 40);
    assertThat(storeKeys).extracting(k -> k.get(1)).as("lanes of a composite key").hasSizeGreaterThan(1);
    assertThat(deletes).isPositive();
  }

  /** Whether a parsed line is valid for these columns: required ones there, each value of its column's type. */
  private static boolean convert(JsonNode n, List<io.tidemark.core.Column> columns,
                                 List<io.tidemark.core.Column> required) {
    if (n == null) {
      return false;
    }
    for (io.tidemark.core.Column c : columns) {
      JsonNode v = n.get(c.name());
      if (v == null || v.isNull()) {
        if (required.contains(c)) {
          return false;
        }
        continue;
      }
      try {
        Object value = c.type().kind() == Type.Kind.DECIMAL
            ? v.decimalValue().setScale(c.type().scale(), java.math.RoundingMode.UNNECESSARY)
            : c.type().valueOf(v.asText());
        assertThat(value).isInstanceOf(c.type().javaClass());
      } catch (RuntimeException e) {
        return false;
      }
    }
    return true;
  }
}
