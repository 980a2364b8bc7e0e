package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The SCD2 dimension's invariants as SQL that Spark and DuckDB read alike, one query per rule, each returning a row
 * per violation (a line naming the company and where): at most one open version per company, is_current exactly on
 * the open one, valid_from before valid_to, versions of a company neither overlapping nor leaving gaps (but where a
 * delete closed the company), no two neighbouring versions alike, and, given the change log, the history equal to the
 * one rebuilt from all changes ({@link Scd2History}).
 */
public final class Scd2Checks {
  /** A rule: its name, and the query whose rows are its violations. */
  public record Rule(String name, String sql) {}

  private Scd2Checks() {}

  /**
   * The rules over the view {@code dimension} (rows of {@link Dimension#VERSION}) and, when {@code changes} is not
   * null, the views {@code changes} (normalized changes) and {@code rebuilt} (the history rebuilt from them).
   */
  public static List<Rule> rules(String dimension, String changes, String rebuilt) {
    return rules(dimension, changes, rebuilt, CompanyChanges.FEED);
  }

  /** The same for the companies as declared when the check runs: every attribute, promoted ones too. */
  public static List<Rule> rules(String dimension, String changes, String rebuilt, FeedSchema companies) {
    String company = Dimension.COMPANY_ID.name();
    String from = Dimension.VALID_FROM.name();
    String to = Dimension.VALID_TO.name();
    List<Column> attributes = CompanyChanges.attributes(companies);
    StringBuilder next = new StringBuilder();
    StringBuilder alike = new StringBuilder();
    for (int i = 0; i < attributes.size(); i++) {
      String a = attributes.get(i).name();
      next.append(", lead(").append(a).append(") OVER w AS next_attr_").append(i);
      alike.append(" AND ").append(a).append(" IS NOT DISTINCT FROM next_attr_").append(i);
    }
    String seq = "(SELECT *, lead(" + from + ") OVER w AS next_from" + next + " FROM " + dimension
        + " WINDOW w AS (PARTITION BY " + company + " ORDER BY " + from + "))";
    List<Rule> out = new ArrayList<>();
    out.add(new Rule("more than one open version", "SELECT " + company + " || ': ' || CAST(count(*) AS STRING) || "
        + "' open' FROM " + dimension + " WHERE " + to + " IS NULL GROUP BY " + company + " HAVING count(*) > 1"));
    out.add(new Rule("is_current differs from valid_to IS NULL", "SELECT " + company + " || ' from ' || " + str(from)
        + " FROM " + dimension + " WHERE " + Dimension.IS_CURRENT + " IS NULL OR " + Dimension.IS_CURRENT + " <> ("
        + to + " IS NULL)"));
    out.add(new Rule("valid_from not before valid_to", "SELECT " + company + " || ' [' || " + str(from)
        + " || ', ' || " + str(to) + " || ')' FROM " + dimension + " WHERE " + from + " IS NULL OR " + to + " <= "
        + from));
    out.add(new Rule("two versions start at the same time", "SELECT " + company + " || ' at ' || " + str(from)
        + " FROM " + dimension + " GROUP BY " + company + ", " + from + " HAVING count(*) > 1"));
    out.add(new Rule("versions overlap", "SELECT " + company + " || ': ends ' || coalesce(" + str(to)
        + ", 'never') || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from IS NOT "
        + "NULL AND (" + to + " IS NULL OR " + to + " > next_from)"));
    out.add(new Rule("neighbouring versions alike", "SELECT " + company + " || ' at ' || " + str("next_from")
        + " FROM " + seq + " s WHERE " + to + " = next_from" + alike));
    if (changes != null) {
      out.add(new Rule("gap between versions without a delete", "SELECT " + company + " || ': ends ' || "
          + str(to) + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE "
          + "next_from > " + to + " AND NOT EXISTS (SELECT 1 FROM " + changes + " c WHERE c." + company + " = s."
          + company + " AND c." + CompanyChanges.DELETED + " AND c." + CompanyChanges.CHANGE_TS + " = s." + to
          + ")"));
      String cols = Dimension.version(companies).columnList();
      out.add(new Rule("version not in the history rebuilt from the changes", "SELECT " + company + " || ' from ' || "
          + str(from) + " FROM (SELECT " + cols + " FROM " + dimension + " EXCEPT SELECT " + cols + " FROM "
          + rebuilt + ") d"));
      out.add(new Rule("version of the rebuilt history missing", "SELECT " + company + " || ' from ' || "
          + str(from) + " FROM (SELECT " + cols + " FROM " + rebuilt + " EXCEPT SELECT " + cols + " FROM "
          + dimension + ") d"));
    } else {
      out.add(new Rule("gap between versions", "SELECT " + company + " || ': ends ' || " + str(to)
          + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from > " + to));
    }
    return out;
  }

  /** A timestamp as text, alike in both engines ('2026-01-01 01:00:00'). */
  private static String str(String column) {
    return "CAST(" + column + " AS STRING)";
  }
}
