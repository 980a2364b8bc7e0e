package io.tidemark.testing;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Bootstrap;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
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

  /** Lands the arrival and runs every stream once. */
  public List<RunReport> arrive(Arrival a) {
    lander.land(a);
    return Streams.all(stack.spark(), config);
  }
}
