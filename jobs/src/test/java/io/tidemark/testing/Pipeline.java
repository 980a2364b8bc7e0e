package io.tidemark.testing;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.land.LandingFile;
import io.tidemark.land.SeedScenarios;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Streams;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A whole pipeline of its own on the shared stack: its landing bucket, its tables (in one namespace), its
 * checkpoints; bootstrapped. For tests that run every stream and the restatement over the default names.
 */
public final class Pipeline {
  private final TestStack stack;
  private final TidemarkConfig config;
  private final Lakehouse lakehouse;
  private final Lander lander;

  public Pipeline(TestStack stack, String name, Path checkpoints) {
    this.stack = stack;
    config = stack.config().scoped(TestStack.unique(name), checkpoints);
    lakehouse = Lakehouse.attach(config, stack.endpoints(), stack.spark());
    Bootstrap.run(stack.spark(), lakehouse.storage(), config);
    lander = new Lander(lakehouse.storage(), config.landingBucket(), "");
  }

  public TidemarkConfig config() {
    return config;
  }

  public Lakehouse lakehouse() {
    return lakehouse;
  }

  public Lander lander() {
    return lander;
  }

  /** The environment under which the command runs on this pipeline. */
  public Map<String, String> env() {
    return stack.env(config);
  }

  /**
   * The seed's arrivals, then a change two days late for c3 (arrival 6) after one that moved the watermark
   * (arrival 5): a pipeline with something to restate.
   */
  public static Pipeline withLateChange(TestStack stack, String name, Path checkpoints) {
    Pipeline p = new Pipeline(stack, name, checkpoints);
    for (Arrival a : SeedScenarios.ALL.arrivals()) {
      p.arrive(a);
    }
    p.arrive(new Arrival(5, List.of(LandingFile.of(SeedScenarios.COMPANIES, "later.jsonl",
        "{\"company_id\":\"c9\",\"name\":\"Nine\",\"tier\":\"gold\",\"change_ts\":\"2026-01-03T00:00:00Z\"}\n"))));
    p.arrive(new Arrival(6, List.of(LandingFile.of(SeedScenarios.COMPANIES, "late.jsonl",
        "{\"company_id\":\"c3\",\"name\":\"Cog\",\"tier\":\"platinum\",\"change_ts\":\"2026-01-01T01:00:00Z\"}\n"))));
    return p;
  }

  /** Lands the arrival and runs every stream once. */
  public List<RunReport> arrive(Arrival a) {
    lander.land(a);
    return Streams.all(stack.spark(), config);
  }
}
