package io.tidemark.core;

import io.tidemark.core.JsonMembers.Kind;
import io.tidemark.core.JsonMembers.Member;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a feed's rows carried beyond its columns, key by key, from their rescued data ({@link Rescued}): for a key the
 * feed does not declare, how often it comes (rows, arrivals), the arrival it first came in, the kinds of values it
 * had and the type to promote it with; for a declared field, the rows whose value did not convert (type drift) and
 * whether widening the column in place would hold them. What {@code tidemark evolve} lists and the report shows.
 */
public final class KeySurvey {
  /** A key that can become a column: an identifier of SQL, as table names are. */
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final BigInteger INT_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
  private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /**
   * One key of a feed's rescued data.
   *
   * @param declared the feed's field of that name (type drift), or null for a key it does not declare
   * @param rows the rows that carried it
   * @param arrivals the arrivals it came in (rows outside the landing layout have none)
   * @param kinds how many of its values were of each JSON kind
   * @param suggested the type to promote it with (for a declared field: the type to widen it to), or null for none
   * @param example one of its values, as JSON
   */
  public record Finding(String feed, String key, Column declared, long rows, Integer firstArrival,
                        Integer lastArrival, int arrivals, Map<Kind, Long> kinds, Type suggested, String example) {
    public boolean drift() {
      return declared != null;
    }

    /** Whether {@code tidemark evolve} can promote it (or widen the field). */
    public boolean promotable() {
      return suggested != null && IDENTIFIER.matcher(key).matches();
    }

    /** What a person reads about it, in one line. */
    public String describe() {
      String seen = rows + " row(s)" + (firstArrival == null ? "" : ", first in arrival " + firstArrival
          + (arrivals > 1 ? ", in " + arrivals + " arrivals up to " + lastArrival : ""));
      String values = kinds.entrySet().stream().map(e -> e.getValue() + " " + e.getKey().name().toLowerCase(Locale.ROOT))
          .reduce((a, b) -> a + ", " + b).orElse("");
      if (drift()) {
        return feed + "." + key + ": type drift, " + seen + " whose value is not " + declared.type().phrase() + " ("
            + values + "; e.g. " + example + "): " + (suggested != null ? "widen to " + suggested.sql()
            + " with `tidemark evolve promote " + feed + " " + key + "`"
            : declared.type().sql() + " cannot be widened to hold them; they stay in the rescued data");
      }
      return feed + "." + key + ": " + seen + " (" + values + "; e.g. " + example + "), "
          + (!IDENTIFIER.matcher(key).matches() ? "not a column name; it stays in the rescued data"
              : "suggested type " + suggested.sql());
    }
  }

  private final FeedSchema feed;
  private final Map<String, Tally> tallies = new LinkedHashMap<>();

  /** A survey of the rescued data of {@code feed}'s rows, the feed as declared now. */
  public KeySurvey(FeedSchema feed) {
    this.feed = feed;
  }

  /** One row: its arrival (null outside the landing layout) and its rescued data (null: nothing rescued). */
  public void add(Integer arrival, String rescued) {
    add(arrival, rescued, 1);
  }

  /** {@code rows} rows alike: one arrival, the same rescued data (as an engine counts them grouped). */
  public void add(Integer arrival, String rescued, long rows) {
    for (Member m : Rescued.members(rescued).values()) {
      tallies.computeIfAbsent(m.key(), k -> new Tally()).add(arrival, m, rows);
    }
  }

  /** The keys, in the order they first came (by arrival), then by name. */
  public List<Finding> findings() {
    List<Finding> out = new ArrayList<>();
    tallies.forEach((key, t) -> {
      Column declared = feed.declares(key) ? feed.columns().column(key) : null;
      out.add(new Finding(feed.name(), key, declared, t.rows, t.first, t.last, t.arrivals.size(), Map.copyOf(t.kinds),
          declared == null ? suggest(t) : widen(declared.type(), t), t.example));
    });
    out.sort(Comparator.comparing(Finding::firstArrival, Comparator.nullsLast(Comparator.naturalOrder()))
        .thenComparing(Finding::key));
    return out;
  }

  /** The finding of one key, when the rows carried it. */
  public java.util.Optional<Finding> finding(String key) {
    return findings().stream().filter(f -> f.key().equals(key)).findFirst();
  }

  /**
   * The type that holds every value a key had: integers an INT (a BIGINT once one is beyond an INT), numbers with
   * a fraction (or integers beyond a BIGINT) a DOUBLE, booleans a BOOLEAN, strings that are all timestamps a TIMESTAMP,
   * anything else (strings, a mix of kinds, objects and arrays as their JSON) a STRING. Nulls say nothing.
   */
  static Type suggest(Tally t) {
    Map<Kind, Long> k = new EnumMap<>(Kind.class);
    k.putAll(t.kinds);
    k.remove(Kind.NULL);
    if (k.isEmpty()) {
      return Type.STRING;
    }
    if (k.keySet().equals(java.util.Set.of(Kind.INTEGER))) {
      return t.beyondLong ? Type.DOUBLE : t.beyondInt ? Type.BIGINT : Type.INT;
    }
    if (java.util.Set.of(Kind.INTEGER, Kind.FLOAT).containsAll(k.keySet())) {
      return Type.DOUBLE;
    }
    if (k.keySet().equals(java.util.Set.of(Kind.BOOLEAN))) {
      return Type.BOOLEAN;
    }
    if (k.keySet().equals(java.util.Set.of(Kind.STRING)) && t.allTimestamps) {
      return Type.TIMESTAMP;
    }
    return Type.STRING;
  }

  /**
   * The type a declared field widens to in place to hold the values that did not convert, as Iceberg allows: an INT
   * to a BIGINT when they are all integers within a BIGINT. Null when no widening holds them.
   */
  static Type widen(Type declared, Tally t) {
    boolean integers = t.kinds.keySet().stream().allMatch(k -> k == Kind.INTEGER || k == Kind.NULL);
    return declared == Type.INT && integers && !t.beyondLong ? Type.BIGINT : null;
  }

  /** Whether a type can be widened to another in place (Iceberg's promotions among the feed's types). */
  public static boolean widens(Type from, Type to) {
    return from == Type.INT && to == Type.BIGINT;
  }

  /** What the rows carried under one key. */
  static final class Tally {
    long rows;
    Integer first;
    Integer last;
    final java.util.Set<Integer> arrivals = new java.util.TreeSet<>();
    final Map<Kind, Long> kinds = new EnumMap<>(Kind.class);
    boolean beyondInt;
    boolean beyondLong;
    boolean allTimestamps = true;
    String example;

    void add(Integer arrival, Member m, long n) {
      rows += n;
      if (arrival != null) {
        arrivals.add(arrival);
        first = first == null ? arrival : Math.min(first, arrival);
        last = last == null ? arrival : Math.max(last, arrival);
      }
      kinds.merge(m.kind(), n, Long::sum);
      if (example == null && m.kind() != Kind.NULL) {
        example = m.json();
      }
      if (m.kind() == Kind.INTEGER) {
        BigInteger v = new BigInteger(m.json());
        beyondInt |= v.compareTo(INT_MIN) < 0 || v.compareTo(INT_MAX) > 0;
        beyondLong |= v.compareTo(LONG_MIN) < 0 || v.compareTo(LONG_MAX) > 0;
      }
      if (m.kind() == Kind.STRING && allTimestamps) {
        allTimestamps = isTimestamp(JsonMembers.display(m));
      }
    }

    private static boolean isTimestamp(String s) {
      try {
        OffsetDateTime.parse(s);
        return true;
      } catch (DateTimeParseException e) {
        return false;
      }
    }
  }
}
