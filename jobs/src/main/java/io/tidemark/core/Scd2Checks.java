package io.tidemark.core;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An SCD2 dimension's invariants as SQL that Spark and DuckDB read alike, one query per rule, each returning a row per
 * violation (a line naming the key and where): at most one open version per key, is_current exactly on the open one,
 * valid_from before valid_to, versions of a key neither overlapping nor leaving gaps (but where a delete closed the
 * key), no two neighbouring versions alike, and, given the change log, the history equal to the one rebuilt from all
 * changes ({@link Scd2History}).
 */
public final class Scd2Checks {
  /** A rule: its name, and the query whose rows are its violations. */
  public record Rule(String name, String sql) {}

  private Scd2Checks() {}

  /**
   * The rules over the view {@code dimension} (rows of {@link DimensionSchema#version}) and, when {@code changes} is
   * not null, the views {@code changes} (normalized changes: the key, the change time and {@code deleted}, a boolean)
   * and {@code rebuilt} (the history rebuilt from them), for the dimension as declared when the check runs.
   */
  public static List<Rule> rules(String dimension, String changes, String rebuilt, DimensionSchema d) {
    String key = d.key().stream().map(Column::name).collect(Collectors.joining(", "));
    String keyText = d.key().stream().map(c -> str(c.name())).collect(Collectors.joining(" || '|' || "));
    String sKeyText = d.key().stream().map(c -> str("s." + c.name())).collect(Collectors.joining(" || '|' || "));
    String from = DimensionSchema.VALID_FROM.name();
    String to = DimensionSchema.VALID_TO.name();
    List<Column> attributes = d.attributes();
    StringBuilder next = new StringBuilder();
    StringBuilder alike = new StringBuilder();
    for (int i = 0; i < attributes.size(); i++) {
      String a = attributes.get(i).name();
      next.append(", lead(").append(a).append(") OVER w AS next_attr_").append(i);
      alike.append(" AND ").append(a).append(" IS NOT DISTINCT FROM next_attr_").append(i);
    }
    String seq = "(SELECT *, lead(" + from + ") OVER w AS next_from" + next + " FROM " + dimension
        + " WINDOW w AS (PARTITION BY " + key + " ORDER BY " + from + "))";
    List<Rule> out = new ArrayList<>();
    out.add(new Rule("more than one open version", "SELECT " + keyText + " || ': ' || CAST(count(*) AS STRING) || "
        + "' open' FROM " + dimension + " WHERE " + to + " IS NULL GROUP BY " + key + " HAVING count(*) > 1"));
    out.add(new Rule("is_current differs from valid_to IS NULL", "SELECT " + keyText + " || ' from ' || " + str(from)
        + " FROM " + dimension + " WHERE " + DimensionSchema.IS_CURRENT + " IS NULL OR " + DimensionSchema.IS_CURRENT
        + " <> (" + to + " IS NULL)"));
    out.add(new Rule("valid_from not before valid_to", "SELECT " + keyText + " || ' [' || " + str(from)
        + " || ', ' || " + str(to) + " || ')' FROM " + dimension + " WHERE " + from + " IS NULL OR " + to + " <= "
        + from));
    out.add(new Rule("two versions start at the same time", "SELECT " + keyText + " || ' at ' || " + str(from)
        + " FROM " + dimension + " GROUP BY " + key + ", " + from + " HAVING count(*) > 1"));
    out.add(new Rule("versions overlap", "SELECT " + keyText + " || ': ends ' || coalesce(" + str(to)
        + ", 'never') || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from IS NOT "
        + "NULL AND (" + to + " IS NULL OR " + to + " > next_from)"));
    out.add(new Rule("neighbouring versions alike", "SELECT " + keyText + " || ' at ' || " + str("next_from")
        + " FROM " + seq + " s WHERE " + to + " = next_from" + alike));
    if (changes != null) {
      String sameKey = d.key().stream().map(c -> "c." + c.name() + " = s." + c.name())
          .collect(Collectors.joining(" AND "));
      out.add(new Rule("gap between versions without a delete", "SELECT " + sKeyText + " || ': ends ' || "
          + str(to) + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE "
          + "next_from > " + to + " AND NOT EXISTS (SELECT 1 FROM " + changes + " c WHERE " + sameKey + " AND c."
          + DELETED + " AND c." + d.changeTime() + " = s." + to + ")"));
      String cols = d.version().columnList();
      out.add(new Rule("version not in the history rebuilt from the changes", "SELECT " + keyText + " || ' from ' || "
          + str(from) + " FROM (SELECT " + cols + " FROM " + dimension + " EXCEPT SELECT " + cols + " FROM "
          + rebuilt + ") d"));
      out.add(new Rule("version of the rebuilt history missing", "SELECT " + keyText + " || ' from ' || "
          + str(from) + " FROM (SELECT " + cols + " FROM " + rebuilt + " EXCEPT SELECT " + cols + " FROM "
          + dimension + ") d"));
    } else {
      out.add(new Rule("gap between versions", "SELECT " + keyText + " || ': ends ' || " + str(to)
          + " || ', next starts ' || " + str("next_from") + " FROM " + seq + " s WHERE next_from > " + to));
    }
    return out;
  }

  /**
   * The column of the view {@code changes} that says whether a change is a delete (the checks hand them the changes
   * normalized: {@link #changesSchema}); named apart from the dimension's key and change time.
   */
  public static final String DELETED = "__deleted";

  /** The normalized changes the checks read: the key, the change time, {@value #DELETED}. */
  public static Schema changesSchema(DimensionSchema d) {
    return new Schema(d.key()).plus(d.changeTime(), Column.of(DELETED, Type.BOOLEAN));
  }

  /** A normalized change as a row of {@link #changesSchema}. */
  public static List<Object> changeRow(Change c) {
    List<Object> out = new ArrayList<>(c.key());
    out.add(c.at());
    out.add(c.deleted());
    return out;
  }

  /** A value as text, alike in both engines ('2026-01-01 01:00:00' for a timestamp). */
  private static String str(String column) {
    return "CAST(" + column + " AS STRING)";
  }
}
