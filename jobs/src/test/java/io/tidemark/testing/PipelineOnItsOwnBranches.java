package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Lander;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Steps on a pipeline of their own, bootstrapped by the command line: its published and staging branches
 * ({@code <name>_main}, {@code <name>_ingest}), since publish (and a promotion, a restatement) merges the whole
 * staging branch, so only a pipeline alone on its branches sees just its own commits; restatement branches and tags
 * under {@link #prefix}; a tag name for a state to read again later. The commands run in JVMs of their own
 * ({@link #env}); the test reads with its Spark. In-JVM writers take {@link StagedPipeline}.
 */
public abstract class PipelineOnItsOwnBranches extends StackTest {
  private final String label;
  /** A writer's configuration: {@code nessieRef()} is the staging branch. */
  protected TidemarkConfig config;
  protected Map<String, String> env;
  protected SeedTables t;
  protected String main;
  protected String ingest;
  protected Lander lander;
  protected NessieRest nessie;
  protected NessieRefs refs;
  /** A directory the steps share. */
  protected Path dir;
  /** A tag the steps make, of a state they read again later. */
  protected String tag;
  /** Before the names of the restatements' branches and tags. */
  protected String prefix;

  /** {@code label} starts the pipeline's names. */
  protected PipelineOnItsOwnBranches(String label) {
    this.label = label;
  }

  @BeforeAll
  void aPipelineWithBranchesOfItsOwn(@TempDir Path dir) {
    this.dir = dir;
    String name = TestStack.unique(label);
    main = name + "_main";
    ingest = name + "_ingest";
    tag = name + "-before";
    prefix = name + "-";
    Map<Setting, String> settings = new java.util.HashMap<>(Map.of(Setting.NESSIE_REF, main,
        Setting.STAGING_BRANCH, ingest));
    if (pipelineFile() != null) {
      settings.put(Setting.PIPELINE, pipelineFile().toAbsolutePath().toString());
    }
    config = stack.config().scoped(name, dir.resolve("cp")).with(settings);
    env = stack.env(config);
    t = pipelineFile() == null ? SeedTables.of(config) : null;
    nessie = stack.nessie();
    refs = new NessieRefs(stack.endpoints());
    succeeds(Cli.run(env, "bootstrap"));
    lander = new Lander(stack.lakehouse().storage(), config.landingBucket(), "");
  }

  /** The pipeline file the steps run (null: the seed's, and {@link #t} names its tables). */
  protected Path pipelineFile() {
    return null;
  }

  @AfterAll
  void closeRefs() {
    refs.close();
  }

  protected List<String> columns(String table) {
    return Arrays.asList(spark.table(table).columns());
  }

  /** The first column of each row, a string. */
  protected List<String> strings(String sql) {
    return spark.sql(sql).collectAsList().stream().map(r -> r.getString(0)).toList();
  }

  protected static Cli.Result succeeds(Cli.Result r) {
    assertThat(r.exitCode()).as("%s", r).isZero();
    return r;
  }
}
