package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.land.GeneratorSpec;
import io.tidemark.land.LocalLanding;
import io.tidemark.land.SeedScenarios;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code land --count-arrivals} and {@code land --list}: answered without services. */
class LandCommandTest {

  private static CommandLineTest.Run run(String... args) {
    return CommandLineTest.run(Map.of(), args);
  }

  @Test
  void countArrivalsPrintsOneNumberForSeedsGeneratedAndALocalReplay(@TempDir Path tmp) {
    assertThat(run("land", "--scenario", "seed", "--count-arrivals").out()).isEqualTo("4\n");
    assertThat(run("land", "--scenario", "seed-counts", "--count-arrivals").out()).isEqualTo("3\n");
    assertThat(run("land", "--scenario", "generated", "--count-arrivals").out())
        .isEqualTo(GeneratorSpec.defaults().arrivals() + "\n");
    assertThat(run("land", "--scenario", "generated", "--arrivals", "12", "--events", "50", "--count-arrivals").out())
        .isEqualTo("12\n");
    LocalLanding.write(tmp, "", SeedScenarios.SCD2.arrivals());
    CommandLineTest.Run replay = run("land", "--replay", tmp.toString(), "--count-arrivals");
    assertThat(replay.code()).as(replay.err()).isZero();
    assertThat(replay.out()).isEqualTo("4\n");
  }

  @Test
  void countArrivalsRefusesWhatItDoesNotCount() {
    CommandLineTest.Run r = run("land", "--scenario", "seed", "--arrival", "2", "--count-arrivals");
    assertThat(r.code()).as("a bad option: exit 2").isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("--count-arrivals");
    CommandLineTest.Run bad = run("land", "--scenario", "generated", "--arrivals", "0", "--count-arrivals");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err().strip()).isEqualTo("tidemark: generator: arrivals must be between 1 and 9999 "
        + "(see tidemark land --help)");
  }

  /** A scenario that does not exist is a bad option: exit 2, one line, before any service is asked. */
  @Test
  void anUnknownScenarioIsABadOption() {
    CommandLineTest.Run r = run("land", "--scenario", "nope");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("tidemark: --scenario nope: unknown; choose one of seed, ")
        .endsWith("(see tidemark land --help)");
  }

  /** --from a directory laid out as a landing zone: the line points at --replay, which lands such a directory. */
  @Test
  void aLandingLayoutGivenToFromPointsAtReplay(@TempDir Path tmp) {
    LocalLanding.write(tmp, "", SeedScenarios.SCD2.arrivals());
    CommandLineTest.Run r = run("land", "--from", tmp.toString(), "--dataset", "companies");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("tidemark: --from " + tmp + ": the directory holds no files; it is laid out "
        + "as a landing zone (<feed>/arrival=NNNN/<file>): land its arrivals with --replay " + tmp);
  }

  @Test
  void listNamesEveryScenarioWithItsArrivalsAndTheGeneratorsDefaultsByOption() throws Exception {
    CommandLineTest.Run r = run("land", "--list");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode list = new ObjectMapper().readTree(r.out());
    List<String> names = new ArrayList<>();
    list.get("scenarios").forEach(s -> names.add(s.get("name").asText()));
    assertThat(names).containsExactly("seed", "seed-counts", "seed-dedup", "seed-scd2", "generated");
    assertThat(list.get("scenarios").get(0).get("arrivals").asInt()).isEqualTo(4);

    GeneratorSpec d = GeneratorSpec.defaults();
    JsonNode g = list.get("generator");
    assertThat(g.get("seed").asLong()).isEqualTo(d.seed());
    assertThat(g.get("events").asInt()).isEqualTo(d.events());
    assertThat(g.get("duplicate-rate").asDouble()).isEqualTo(d.duplicateRate());
    assertThat(g.get("minutes-per-arrival").asInt()).isEqualTo(d.minutesPerArrival());
    assertThat(g.get("start").asText()).isEqualTo(d.start().toString());
    // every generator option is listed, by the name the command line takes
    CommandLine land = Tidemark.commandLine(Map.of()).getSubcommands().get("land");
    assertThat(g.size()).isEqualTo(land.getCommandSpec().findOption("--seed").group().options().size());
    g.fieldNames().forEachRemaining(name -> assertThat(land.getCommandSpec().findOption("--" + name)).as(name)
        .isNotNull());
  }
}
