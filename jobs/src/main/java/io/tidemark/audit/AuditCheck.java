package io.tidemark.audit;

/** One check of an audit: what was checked on which table, whether it held, and what was seen. */
public record AuditCheck(String name, String table, boolean passed, String detail) {
  public static AuditCheck of(String name, String table, long violations, String detail) {
    return new AuditCheck(name, table, violations == 0, violations == 0 ? detail : violations + " violation(s): " + detail);
  }

  /**
   * A check that found {@code problems} (each a line naming where): passed with {@code passing} when there are none,
   * else failed naming the first few of them.
   */
  public static AuditCheck of(String name, String table, java.util.List<String> problems, String passing) {
    if (problems.isEmpty()) {
      return new AuditCheck(name, table, true, passing);
    }
    int shown = Math.min(5, problems.size());
    return new AuditCheck(name, table, false, problems.size() + " violation(s): "
        + String.join("; ", problems.subList(0, shown)) + (problems.size() > shown ? " (and "
        + (problems.size() - shown) + " more)" : ""));
  }

  @Override
  public String toString() {
    return (passed ? "PASS " : "FAIL ") + name + " on " + table + ": " + detail;
  }
}
