package io.tidemark.audit;

/** One check of an audit: what was checked on which table, whether it held, and what was seen. */
public record AuditCheck(String name, String table, boolean passed, String detail) {
  public static AuditCheck of(String name, String table, long violations, String detail) {
    return new AuditCheck(name, table, violations == 0, violations == 0 ? detail : violations + " violation(s): " + detail);
  }

  @Override
  public String toString() {
    return (passed ? "PASS " : "FAIL ") + name + " on " + table + ": " + detail;
  }
}
