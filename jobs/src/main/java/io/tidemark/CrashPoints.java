package io.tidemark;

/**
 * Where a job may be halted as a kill would halt it, for the crash tests: the jobs name their points (a stream's
 * batch before and after its commit, a publish after its checks and after its merge, the restatement's write between
 * two tables) and whoever starts them decides what happens there. Nothing, unless a test asks ({@link CrashHook}).
 */
@FunctionalInterface
public interface CrashPoints {
  /** No crash anywhere: what a job gets unless told otherwise. */
  CrashPoints NONE = point -> { };

  /** The job reached {@code point}. */
  void at(String point);
}
