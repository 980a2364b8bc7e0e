package io.tidemark.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The tests of a class are the steps of one scenario: they run in the order of their {@code @Order}, on one instance
 * of the class (what a step leaves for the next is in its fields, made ready in a {@code @BeforeAll}; {@code tmp} is
 * each test's own, so a directory the steps share comes from a {@code @TempDir} parameter of that method). Once a
 * step fails, every later one fails at once naming it, rather than running on what the failed step left.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(Steps.AfterAFailedStep.class)
public @interface Steps {
  /** Remembers the first step that failed; the steps after it fail before they start. */
  final class AfterAFailedStep implements TestWatcher, BeforeEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Steps.class);

    @Override
    public void beforeEach(ExtensionContext context) {
      String failed = store(context).get("failed", String.class);
      if (failed != null) {
        throw new AssertionError("not run: the step " + failed + " failed before it");
      }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      ExtensionContext.Store store = store(context);
      if (store.get("failed") == null) {
        store.put("failed", context.getDisplayName());
      }
    }

    private static ExtensionContext.Store store(ExtensionContext test) {
      return test.getParent().orElseThrow().getStore(NAMESPACE);
    }
  }
}
