package io.tidemark;

/**
 * The crash tests' kill switch, the crash points ({@link CrashPoints}) the command line gives the jobs it starts:
 * {@code TIDEMARK_TEST_CRASH=<point>} halts the JVM at that point of a job, as a kill would, with nothing flushed or
 * cleaned up. A value ending in {@code *} names every point it starts with ({@code dedup:after-commit:*}: whichever
 * batch of dedup gets there first). Unset, the jobs get {@link CrashPoints#NONE}.
 */
public final class CrashHook implements CrashPoints {
  public static final String VARIABLE = "TIDEMARK_TEST_CRASH";

  private final String hook;

  private CrashHook(String hook) {
    this.hook = hook;
  }

  /** The crash points {@code env} asks for: none unless it sets {@link #VARIABLE}. */
  public static CrashPoints of(java.util.Map<String, String> env) {
    String hook = env.get(VARIABLE);
    return hook == null || hook.isEmpty() ? CrashPoints.NONE : new CrashHook(hook);
  }

  /** Halts the JVM with exit code 137 (as SIGKILL) when the variable names {@code point}. */
  @Override
  public void at(String point) {
    if (matches(hook, point)) {
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
