package io.tidemark;

/**
 * The crash tests' kill switch: {@code TIDEMARK_TEST_CRASH=<point>} halts the JVM at that point of a job, as a kill
 * would, with nothing flushed or cleaned up. A value ending in {@code *} names every point it starts with
 * ({@code dedup:after-commit:*}: whichever batch of dedup gets there first). Unset, it costs a variable lookup.
 */
public final class CrashHook {
  public static final String VARIABLE = "TIDEMARK_TEST_CRASH";

  private CrashHook() {}

  /** Halts the JVM with exit code 137 (as SIGKILL) when the variable names {@code point}. */
  public static void at(String point) {
    if (matches(System.getenv(VARIABLE), point)) {
      System.err.println("tidemark: " + VARIABLE + " halts the JVM at " + point);
      System.err.flush();
      Runtime.getRuntime().halt(137);
    }
  }

  static boolean matches(String hook, String point) {
    if (hook == null || hook.isEmpty()) {
      return false;
    }
    return hook.endsWith("*") ? point.startsWith(hook.substring(0, hook.length() - 1)) : hook.equals(point);
  }
}
