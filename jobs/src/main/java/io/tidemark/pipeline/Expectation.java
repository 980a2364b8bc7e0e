package io.tidemark.pipeline;

import java.util.Locale;
import java.util.Objects;

/**
 * A rule a feed's data is held to, declared next to the feed in the pipeline file ({@code expectations:}), with what to
 * do when it fails. A <b>row</b> expectation is a Spark SQL boolean over the feed's columns, judged line by line by every
 * stream of the feed alike ({@code warn}: the row flows on and is counted; {@code drop}: the row goes to the quarantine
 * with the expectation as its reason; {@code fail}: the row goes to the quarantine and its arrival is held off the
 * published branch until a correction lands). An <b>arrival</b> expectation is a bound over a whole arrival of the
 * feed, judged by {@code tidemark publish}: the rows it keeps ({@link Kind#ROWS}), the share of them with a null in
 * a column ({@link Kind#NULLS}), the share of its valid lines dropped by row expectations ({@link Kind#DROPPED});
 * {@code warn} or {@code fail}.
 *
 * @param condition a row expectation's Spark SQL boolean, as written; null for an arrival expectation
 * @param column the column a {@link Kind#NULLS} expectation looks at; null otherwise
 * @param min the fewest rows an arrival keeps ({@link Kind#ROWS}); null: no bound
 * @param max the most rows an arrival keeps ({@link Kind#ROWS}); null: no bound
 * @param atMost the largest share, 0 to 1, of nulls ({@link Kind#NULLS}) or of dropped rows ({@link Kind#DROPPED})
 * @param where where it is declared, {@code <file>:<line>: <field's path>}, before a message about it (not part of
 *     what it is)
 */
public record Expectation(String name, Kind kind, Action action, String condition, String column, Long min, Long max,
                          Double atMost, String where) {
  /** What an expectation is over. */
  public enum Kind {
    /** A boolean over each row. */
    ROW("condition"),
    /** The rows an arrival keeps, within bounds. */
    ROWS("rows"),
    /** The share of an arrival's rows with a null in a column, at most a bound. */
    NULLS("nulls"),
    /** The share of an arrival's valid lines that row expectations dropped, at most a bound. */
    DROPPED("dropped");

    private final String field;

    Kind(String field) {
      this.field = field;
    }

    /** The field of the file that declares it (and what the record calls it). */
    public String field() {
      return field;
    }

    public static Kind ofField(String field) {
      for (Kind k : values()) {
        if (k.field.equals(field)) {
          return k;
        }
      }
      throw new IllegalArgumentException(field);
    }
  }

  /** What happens when an expectation fails. */
  public enum Action {
    /** Counted; the row (the arrival) goes on. */
    WARN,
    /** The row goes to the quarantine with the expectation as its reason (row expectations only). */
    DROP,
    /** The arrival is held off the published branch until a correction lands (a row also goes to the quarantine). */
    FAIL;

    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Action parse(String word) {
      for (Action a : values()) {
        if (a.word().equals(word)) {
          return a;
        }
      }
      throw new IllegalArgumentException("'" + word + "' is no action: warn, drop or fail");
    }
  }

  public Expectation {
    Objects.requireNonNull(name);
    Objects.requireNonNull(kind);
    Objects.requireNonNull(action);
    if (kind == Kind.ROW && condition == null) {
      throw new IllegalArgumentException("a row expectation has a condition");
    }
    if (kind != Kind.ROW && action == Action.DROP) {
      throw new IllegalArgumentException("an arrival expectation warns or fails");
    }
  }

  /** A row expectation. */
  public static Expectation row(String name, String condition, Action action) {
    return new Expectation(name, Kind.ROW, action, condition, null, null, null, null, null);
  }

  public boolean isRow() {
    return kind == Kind.ROW;
  }

  /** Whether a row that fails it goes to the quarantine (drop, or fail). */
  public boolean quarantines() {
    return isRow() && action != Action.WARN;
  }

  /**
   * The reason a row that fails it is quarantined with: {@code expectation <name> (drop)}, {@code ... (fail)}. A query
   * of the quarantine finds an expectation's rows by it, and {@code tidemark publish} the rows that hold an arrival.
   */
  public String reason() {
    return reason(name, action);
  }

  public static String reason(String name, Action action) {
    return REASON_PREFIX + name + " (" + action.word() + ")";
  }

  /** Before the name in the reason of a row an expectation quarantined. */
  public static final String REASON_PREFIX = "expectation ";

  /** The SQL LIKE pattern of the reasons of rows held by a fail expectation. */
  public static final String HELD_REASONS = REASON_PREFIX + "% (fail)";

  /**
   * The rule as one line, what the record and messages show: the condition, or the bound ({@code rows between 1
   * and 100000}, {@code nulls of company_id at most 5%}, {@code dropped at most 1%}).
   */
  public String rule() {
    return switch (kind) {
      case ROW -> condition;
      case ROWS -> "rows " + (min != null && max != null ? "between " + min + " and " + max
          : min != null ? "at least " + min : "at most " + max);
      case NULLS -> "nulls of " + column + " at most " + percent(atMost);
      case DROPPED -> "dropped at most " + percent(atMost);
    };
  }

  /** A share as a percentage, as short as it is exact enough ({@code 5%}, {@code 0.5%}). */
  public static String percent(double share) {
    double p = share * 100;
    String s = p == Math.rint(p) ? Long.toString((long) p) : String.format(Locale.ROOT, "%.4f", p)
        .replaceAll("0+$", "");
    return s + "%";
  }

  private static final java.util.regex.Pattern IN_SET = java.util.regex.Pattern.compile(
      "(?i)\\s*`?([A-Za-z_][A-Za-z0-9_]*)`?\\s+IN\\s*\\(((?:\\s*'[^']*'\\s*,?)+)\\)\\s*");
  private static final java.util.regex.Pattern QUOTED = java.util.regex.Pattern.compile("'([^']*)'");

  /**
   * The columns that row rules keep in a set of strings, each rule a plain {@code <column> IN ('a', 'b', ...)}: what a
   * generator of lines picks from, so that the lines it makes are not quarantined by them. Other rules are left out.
   */
  public static java.util.Map<String, java.util.List<String>> sets(java.util.List<Expectation> rules) {
    java.util.Map<String, java.util.List<String>> out = new java.util.LinkedHashMap<>();
    for (Expectation e : rules) {
      java.util.regex.Matcher m = e.isRow() && e.action() != Action.WARN ? IN_SET.matcher(e.condition()) : null;
      if (m != null && m.matches()) {
        java.util.List<String> values = new java.util.ArrayList<>();
        java.util.regex.Matcher q = QUOTED.matcher(m.group(2));
        while (q.find()) {
          values.add(q.group(1));
        }
        out.put(m.group(1), values);
      }
    }
    return out;
  }

  /** What it is, without where it is declared: two versions of a rule are alike when this is. */
  public String definition() {
    return name + ": " + kind.field() + " " + rule() + " -> " + action.word();
  }

  /** The same expectation declared elsewhere (a scoped copy, one read back from a table). */
  public Expectation at(String where) {
    return new Expectation(name, kind, action, condition, column, min, max, atMost, where);
  }
}
