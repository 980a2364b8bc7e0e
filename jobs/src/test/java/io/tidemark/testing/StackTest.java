package io.tidemark.testing;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every integration test on the shared stack starts with: the stack (started once per JVM), its Spark
 * session, tables of the test's own in a fresh namespace named after the test class (created on first use), and a
 * temporary directory.
 */
public abstract class StackTest {
  protected final TestStack stack = TestStack.get();
  protected final SparkSession spark = stack.spark();
  protected final StreamFixture fx;

  @TempDir
  protected Path tmp;

  /** The namespace of the test's tables starts with {@code prefix}. */
  protected StackTest(String prefix) {
    fx = new StreamFixture(stack, prefix);
  }

  protected StackTest() {
    fx = new StreamFixture(stack, getClass().getSimpleName().replaceFirst("IT$", "").toLowerCase(Locale.ROOT));
  }
}
