package io.tidemark.testing;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every integration test starts with: the shared stack (started once per JVM), its Spark session, tables of the
 * test's own in a fresh namespace named after the test class (created on first use), and a temporary directory.
 * A test whose subject is the services themselves takes {@link OwnServicesTest}; the tests of a class that are steps
 * of one scenario are marked {@link Steps}; a sequence of arrivals and runs is written as a {@link StreamScript}.
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
