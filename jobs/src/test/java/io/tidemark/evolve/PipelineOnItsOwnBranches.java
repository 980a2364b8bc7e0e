package io.tidemark.evolve;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.config.Tables;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.Lander;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.testing.Cli;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The steps of a promotion run on a pipeline of their own, bootstrapped by the command line: its published and
 * staging branches ({@code <name>_main}, {@code <name>_ingest}), since a promotion merges into the whole staging
 * branch and publish takes all of it; restatement branches and tags under {@link #prefix}; a tag name for the
 * state before the promotion. The commands run in JVMs of their own ({@link #env}); the test reads with its Spark.
 */
abstract class PipelineOnItsOwnBranches extends StackTest {
  private final String label;
  protected Map<String, String> env;
  protected Tables t;
  protected String main;
  protected String ingest;
  protected Lander lander;
  protected NessieRest nessie;
  protected NessieRefs refs;
  /** A directory the steps share. */
  protected Path dir;
  /** The tag made before the promotion. */
  protected String tag;
  /** Before the names of the restatements' branches and tags. */
  protected String prefix;

  /** {@code label} starts the pipeline's names. */
  PipelineOnItsOwnBranches(String label) {
    this.label = label;
  }

  @BeforeAll
  void aPipelineWithBranchesOfItsOwn(@TempDir Path dir) {
    this.dir = dir;
    String name = TestStack.unique(label);
    main = name + "_main";
    ingest = name + "_ingest";
    tag = name + "-before-evolve";
    prefix = name + "-";
    TidemarkConfig config = stack.config().scoped(name, dir.resolve("cp"))
        .with(Map.of(Setting.NESSIE_REF, main, Setting.STAGING_BRANCH, ingest));
    env = stack.env(config);
    t = config.tables();
    nessie = stack.nessie();
    refs = new NessieRefs(stack.endpoints());
    succeeds(Cli.run(env, "bootstrap"));
    lander = new Lander(stack.lakehouse().storage(), config.landingBucket(), "");
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
