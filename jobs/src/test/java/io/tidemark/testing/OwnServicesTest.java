package io.tidemark.testing;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Services;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The shared stack's harness, for tests whose subject is the services themselves: started, stopped, killed, on a
 * busy port or unreachable on purpose. Such a test must not do that to the shared stack, which the other tests of
 * the JVM use, so it gets a tidemark home of its own ({@link #home}) on free ports ({@link #ownEnv}); whatever it
 * started there is stopped after it, passed or failed. The shared stack stays at hand, e.g. to show that it was
 * left alone.
 */
public abstract class OwnServicesTest extends StackTest {
  /** The test's own tidemark home: its services' pid files, logs and data, nothing else. */
  protected Path home;
  private Map<String, String> env;

  @BeforeEach
  void ownHome() throws IOException {
    home = Files.createDirectories(tmp.resolve("home"));
    env = TestStack.environment(home);
  }

  /** The environment of a tidemark on the test's home, with {@code settings} (name, value, ...) over it. */
  protected Map<String, String> ownEnv(String... settings) {
    Map<String, String> out = new HashMap<>(env);
    for (int i = 0; i < settings.length; i += 2) {
      out.put(settings[i], settings[i + 1]);
    }
    return out;
  }

  /** What `tidemark services down` does, in this JVM: the test's subject is what it started, not the stop. */
  @AfterEach
  void stopOwnServices() {
    if (Files.isDirectory(home.resolve("run"))) {
      new Services(TidemarkConfig.of(env, Map.of())).down();
    }
  }
}
