package io.tidemark.testing;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.land.Arrival;
import io.tidemark.land.Lander;
import io.tidemark.publish.Publisher;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Streams;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * A pipeline of its own with its own published and staging branches ({@code <name>_main}, {@code <name>_ingest}):
 * publish merges the whole staging branch, so only a pipeline alone on its branches publishes just its own arrivals,
 * and its published branch's log holds nothing but its own publishes. Its writes run in the test JVM on a Spark
 * session of their own (a new session of the suite's, sharing its SparkContext) whose catalog works on the
 * pipeline's staging branch; commands in JVMs of their own get {@link #env}.
 */
public final class StagedPipeline {
  private final TestStack stack;
  private final TidemarkConfig config;
  private final SparkSession spark;
  private final Lakehouse lakehouse;
  private final Lander lander;

  public StagedPipeline(TestStack stack, String name, Path checkpoints) {
    this(stack, name, checkpoints, null);
  }

  /** The pipeline of {@code pipelineFile} (the seed's when null), scoped as above. */
  public StagedPipeline(TestStack stack, String name, Path checkpoints, Path pipelineFile) {
    this.stack = stack;
    String n = TestStack.unique(name);
    TidemarkConfig base = pipelineFile == null ? stack.config()
        : stack.config().with(Map.of(Setting.PIPELINE, pipelineFile.toAbsolutePath().toString()));
    config = base.scoped(n, checkpoints)
        .with(Map.of(Setting.NESSIE_REF, n + "_main", Setting.STAGING_BRANCH, n + "_ingest"));
    // a catalog is made once per session from its settings: a new session gets one on this pipeline's branch
    spark = stack.spark().newSession();
    spark.conf().set("spark.sql.catalog." + SparkSessions.CATALOG + ".ref", config.nessieRef());
    lakehouse = Lakehouse.attach(config, stack.endpoints(), spark);
    Bootstrap.setUp(lakehouse);
    lander = new Lander(lakehouse.storage(), config.landingBucket(), "");
  }

  /** A writer's configuration: {@code nessieRef()} is the staging branch. */
  public TidemarkConfig config() {
    return config;
  }

  public String published() {
    return config.publishedRef();
  }

  public String staging() {
    return config.stagingBranch();
  }

  public SparkSession spark() {
    return spark;
  }

  public Lakehouse lakehouse() {
    return lakehouse;
  }

  /** The environment of a command on this pipeline in a JVM of its own. */
  public Map<String, String> env() {
    return stack.env(config);
  }

  public void land(Arrival a) {
    lander.land(a);
  }

  /** {@code tidemark stream all}, in this JVM: onto the staging branch. */
  public List<RunReport> streamAll() {
    return Streams.all(spark, config);
  }

  /** {@code tidemark publish}, in this JVM. */
  public Publisher.Result publish() {
    return new Publisher(lakehouse).publish(false);
  }
}
