package io.tidemark.stream;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Several failures of one {@code stream all}: a stream's each, and the record's of their batches. Each is reported
 * once, the first as the command's line and the others after it. Its cause is the first, so that what the first
 * says (a bad setting, a service out of reach) decides the exit code as it would alone; the others are attached to
 * this exception, never to one another, so that every one of them is in the stack trace and none is lost.
 */
public final class StreamsFailed extends StreamException {
  private final transient List<Throwable> failures;

  private StreamsFailed(List<Throwable> failures) {
    super(firstLine(failures.get(0)) + " (and " + (failures.size() - 1) + " more: "
        + String.join("; ", failures.subList(1, failures.size()).stream().map(StreamsFailed::firstLine).toList())
        + ")", failures.get(0));
    this.failures = List.copyOf(failures);
    failures.subList(1, failures.size()).forEach(this::addSuppressed);
  }

  /** Every failure, the first first. */
  public List<Throwable> failures() {
    return failures;
  }

  /**
   * Throws what failed, if anything: one failure as it is, several as one {@link StreamsFailed}. The same exception
   * may come twice (two runs that failed on one thing they shared, say the table both record their batches in): it
   * counts once. Attaching an exception to itself throws ("Self-suppression not permitted") and would hide them all.
   * Null entries are what did not fail.
   */
  public static void throwIfAny(List<? extends Throwable> failures) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> distinct = new ArrayList<>();
    for (Throwable t : failures) {
      if (t != null && seen.add(t)) {
        distinct.add(t);
      }
    }
    if (distinct.isEmpty()) {
      return;
    }
    if (distinct.size() > 1) {
      throw new StreamsFailed(distinct);
    }
    Throwable only = distinct.get(0);
    if (only instanceof RuntimeException re) {
      throw re;
    }
    if (only instanceof Error err) {
      throw err;
    }
    throw new StreamException(firstLine(only), only);
  }
}
