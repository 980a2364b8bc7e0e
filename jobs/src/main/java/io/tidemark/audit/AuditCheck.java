package io.tidemark.audit;

import java.util.List;

/** One check of an audit: what was checked on which table, whether it held, and what was seen. */
public record AuditCheck(String name, String table, boolean passed, String detail) {
  /** How many of what a check found wrong its detail names; the count says how many there are in all. */
  static final int NAMED = 5;

  /**
   * {@code detail} is what was seen: when {@code violations} is not 0 it must say what is wrong, not what a pass
   * says (use {@link #of(String, String, List, String)} when the check knows what it found).
   */
  public static AuditCheck of(String name, String table, long violations, String detail) {
    return new AuditCheck(name, table, violations == 0, violations == 0 ? detail : violations + " violation(s): " + detail);
  }

  /**
   * A check that passes when it found nothing: {@code passing} says what held; otherwise the detail names what it
   * found, the first {@value #NAMED} of them ({@code c1 2026-01-01 00:05:00 holds 2 rows}).
   */
  public static AuditCheck of(String name, String table, List<String> found, String passing) {
    if (found.isEmpty()) {
      return new AuditCheck(name, table, true, passing);
    }
    String named = String.join("; ", found.subList(0, Math.min(NAMED, found.size())));
    return new AuditCheck(name, table, false, found.size() + " violation(s): " + named
        + (found.size() > NAMED ? "; and " + (found.size() - NAMED) + " more" : ""));
  }

  @Override
  public String toString() {
    return (passed ? "PASS " : "FAIL ") + name + " on " + table + ": " + detail;
  }
}
