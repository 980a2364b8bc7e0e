package io.tidemark.land;

import io.tidemark.pipeline.Pipeline;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The scenarios {@code tidemark land --scenario} takes, by name: the seeds, then the generator. */
public final class Scenarios {
  private Scenarios() {}

  /** Every name, in the order help and messages list them. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    SeedScenarios.all().forEach(s -> names.add(s.name()));
    names.add(GeneratedScenario.NAME);
    return List.copyOf(names);
  }

  /**
   * The scenario of a name for a pipeline; {@code generator} gives the settings of the generated one, and is asked
   * only for it. A seed scenario lands the seed pipeline's feeds, which another pipeline must declare.
   *
   * @throws LandingException for a name that is not in {@link #names()}
   */
  public static Scenario named(String name, Pipeline pipeline, Supplier<GeneratorSpec> generator) {
    if (GeneratedScenario.NAME.equals(name)) {
      GeneratorSpec spec;
      try {
        spec = generator.get();
      } catch (IllegalArgumentException e) {
        throw new LandingException("generator: " + e.getMessage());
      }
      return new GeneratedScenario(spec, pipeline);
    }
    Scenario seed = SeedScenarios.all().stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new LandingException("--scenario " + name + ": unknown; choose one of "
            + String.join(", ", names())));
    for (Arrival a : seed.arrivals()) {
      for (LandingFile f : a.files()) {
        if (pipeline.findFeed(f.feed()).isEmpty()) {
          throw new LandingException("--scenario " + name + " lands the seed pipeline's " + f.feed() + ", which the "
              + "pipeline " + pipeline.name() + " does not declare: land --scenario generated, which makes lines "
              + "for its feeds");
        }
      }
    }
    return seed;
  }
}
