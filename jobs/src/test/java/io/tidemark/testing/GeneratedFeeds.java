package io.tidemark.testing;

import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.DeleteMarker;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.Measure;
import io.tidemark.core.Schema;
import io.tidemark.core.Type;
import io.tidemark.core.Windows;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Random pipeline declarations and rows made to collide, for the property tests that hold the core's rules (and the
 * Spark plans that implement them) over feeds nobody tuned: fact feeds keyed on 1-3 columns of int, long, string, date
 * or decimal, with windowed aggregates of random length (any whole number of seconds, as a pipeline file can declare
 * it) grouping by 1-3 columns and keeping count, sum, min and max over int, long, double, decimal(p,s), date, string
 * and timestamp columns; dimensions with composite keys, 1-3 tracked attributes (doubles among them), an untracked
 * column now and then, and a boolean or a string delete marker (or none). Each column draws from a few values of its
 * type, so that rows collide: few keys, groups and instants (around window boundaries, before 1970, to the
 * microsecond), nulls, -0.0 and 0.0, NaN, decimals at both ends of their precision, strings that Java's UTF-16 order
 * and Spark's byte order sort apart. Column names come from a pool that includes names a plan could use for its own
 * columns. Deterministic for a seed.
 */
public final class GeneratedFeeds {
  /** Column names: plain ones, and ones a Spark plan might give a column of its own. */
  private static final String[] NAMES = {"id", "shop", "day", "price", "qty", "region", "kind", "seen", "score",
      "note", "code", "lane", "segment", "amount", "flag", "value", "rank", "repeat", "op", "start", "old_rows",
      "same_rows", "deleted", "n", "total", "window"};
  private static final String[] STRINGS = {"a", "A", "b", "", "\uff21", "\ud83d\ude00", "\u00e9", "e\u0301",
      "a b"};
  private static final LocalDate[] DATES = {LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1),
      LocalDate.of(1969, 7, 20), LocalDate.of(1900, 1, 1), LocalDate.of(2026, 1, 1), LocalDate.of(2099, 12, 31)};
  private static final int[] INTS = {0, 1, -1, 7, Integer.MAX_VALUE, Integer.MIN_VALUE};
  private static final long[] LONGS = {0L, 1L, -1L, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE};
  /**
   * Doubles of mixed signs are exact (dyadic, few bits): a floating sum of mixed signs may cancel down to its
   * rounding, which no relative tolerance holds, while the rule's 1e-9 is for sums that differ by their order only.
   */
  private static final double[] EXACT_DOUBLES = {0.0, -0.0, 0.5, -1.5, 2.25, -1024.125, Double.NaN};
  /** Doubles that are not exact, all of one sign: their sums differ by order within a relative 1e-9. */
  private static final double[] INEXACT_DOUBLES = {0.0, -0.0, 0.1, 0.7, 123.456, 1e-3, 6.02e23, Double.NaN};
  private static final Type[] KEY_TYPES = {Type.INT, Type.BIGINT, Type.STRING, Type.DATE, null};
  private static final Type[] OTHER_TYPES = {Type.INT, Type.BIGINT, Type.DOUBLE, Type.STRING, Type.DATE,
      Type.BOOLEAN, Type.TIMESTAMP, null};
  private static final Type[] ATTRIBUTE_TYPES = {Type.STRING, Type.INT, Type.BIGINT, Type.DOUBLE, Type.DATE,
      Type.BOOLEAN, null};

  private final SplittableRandom rng;
  /** Names this generator does not give columns. */
  private final Set<String> avoided = new java.util.HashSet<>();
  /** How many facts and dimensions it declared: what cycles through the kinds of keys and markers. */
  private int facts;
  private int dimensions;
  /** What its declarations have had, for the tests to hold that they covered what they mean to. */
  private final Set<String> features = new java.util.TreeSet<>();
  /** Per column (by identity of its declaration), the few values rows draw from. */
  private final Map<Column, List<Object>> pools = new HashMap<>();
  /** Per declaration, the instants its event or change times draw from. */
  private final Map<FeedSchema, List<Instant>> instants = new HashMap<>();

  public GeneratedFeeds(long seed) {
    this.rng = new SplittableRandom(seed);
  }

  /**
   * A generator that gives no column these names: for the checks that run unquoted SQL in DuckDB, where a reserved
   * word (window) is no column name; a pipeline file does not refuse one yet.
   */
  public GeneratedFeeds avoiding(String... names) {
    avoided.addAll(Arrays.asList(names));
    return this;
  }

  public SplittableRandom random() {
    return rng;
  }

  /** A fact feed and its windowed aggregates. */
  public record Fact(FeedSchema feed, List<Aggregation> aggregations) {}

  // ---- declarations

  /**
   * A fact feed named {@code name}: a key of 1-3 columns, an event time, 3-5 other columns (a double, a decimal and a
   * date among them); 1-2 aggregates.
   */
  public Fact fact(String name) {
    int n = facts++;
    List<String> names = names(9);
    List<Column> key = key(names, n);
    Column time = Column.of(names.remove(0) + "_ts", Type.TIMESTAMP);
    // a double, a decimal and a date for the measures, then others of any type
    List<Column> other = new ArrayList<>(List.of(Column.of(names.remove(0), Type.DOUBLE),
        Column.of(names.remove(0), type(new Type[] {null})), Column.of(names.remove(0), Type.DATE)));
    for (int i = rng.nextInt(0, 3); i > 0; i--) {
      other.add(Column.of(names.remove(0), type(OTHER_TYPES)));
    }
    List<Column> columns = new ArrayList<>(key);
    columns.add(time);
    columns.addAll(other);
    Collections.shuffle(columns, new java.util.Random(rng.nextLong()));
    List<Column> required = new ArrayList<>(key);
    required.add(time);
    FeedSchema feed = new FeedSchema(name, new Schema(columns), key, time, required);
    List<Aggregation> aggregations = new ArrayList<>();
    for (int i = rng.nextInt(1, 3); i > 0; i--) {
      aggregations.add(aggregation(feed));
    }
    for (Aggregation a : aggregations) {
      a.measures().forEach(m -> features.add(m.function().fileName() + (m.of() == null ? ""
          : " of " + m.of().type().kind().name().toLowerCase(java.util.Locale.ROOT))));
      features.add(a.groupBy().size() > 1 ? "composite group" : "group of one");
      a.groupBy().forEach(g -> features.add("group " + g.type().kind().name().toLowerCase(java.util.Locale.ROOT)));
      if (Duration.ofHours(1).toSeconds() % a.windows().size().toSeconds() != 0) {
        features.add("window not dividing an hour");
      }
    }
    return new Fact(feed, aggregations);
  }

  /**
   * A key of 1-3 columns, their count and types cycling with {@code n} (so that a few declarations have keys of every
   * type and arity): column j of declaration n is of {@code KEY_TYPES[(n + 2j) % 5]}.
   */
  private List<Column> key(List<String> names, int n) {
    List<Column> key = new ArrayList<>();
    int nKey = 1 + n % 3;
    for (int j = 0; j < nKey; j++) {
      Type t = KEY_TYPES[(n + 2 * j) % KEY_TYPES.length];
      key.add(Column.of(names.remove(0), t != null ? t : type(new Type[] {null})));
    }
    features.add(nKey > 1 ? "composite key" : "key of one");
    key.forEach(k -> features.add("key " + k.type().kind().name().toLowerCase(java.util.Locale.ROOT)));
    return key;
  }

  /** What the declarations made so far have had: key types and arities, measures, markers, attribute types. */
  public Set<String> features() {
    return java.util.Collections.unmodifiableSet(features);
  }

  /** A windowed aggregate of the feed: a random window, 1-3 grouping columns, a sum, a min or max, 0-2 more. */
  public Aggregation aggregation(FeedSchema feed) {
    List<Column> groupable = feed.columns().columns().stream()
        .filter(c -> !c.type().equals(Type.DOUBLE) && !c.type().equals(Type.TIMESTAMP)).toList();
    List<Column> groupBy = new ArrayList<>(pick(groupable, rng.nextInt(1, Math.min(3, groupable.size()) + 1)));
    Set<String> taken = new java.util.HashSet<>();
    groupBy.forEach(g -> taken.add(g.name()));
    Column start = Column.of(rng.nextBoolean() ? "w_start" : "window_start", Type.TIMESTAMP);
    taken.add(start.name());
    List<Measure> measures = new ArrayList<>();
    List<Column> numeric = feed.columns().columns().stream().filter(c -> c.type().isNumeric()).toList();
    List<Column> ordered = feed.columns().columns().stream().filter(c -> c.type().isOrdered()).toList();
    // a sum and a least or greatest value, then 0-2 measures of any function
    for (int i = rng.nextInt(2, 5); i > 0; i--) {
      int f = measures.isEmpty() ? 1 : measures.size() == 1 ? rng.nextInt(2, 4) : rng.nextInt(4);
      String n = measureName(taken);
      if (f == 0 || f == 1 && numeric.isEmpty()) {
        measures.add(Measure.count(n));
      } else if (f == 1) {
        measures.add(new Measure(n, Measure.Function.SUM, numeric.get(rng.nextInt(numeric.size()))));
      } else {
        measures.add(new Measure(n, f == 2 ? Measure.Function.MIN : Measure.Function.MAX,
            ordered.get(rng.nextInt(ordered.size()))));
      }
    }
    return new Aggregation(new Windows(window()), groupBy, start, measures);
  }

  /**
   * A dimension named {@code name}: a key of 1-3 columns, a change time, 1-3 tracked attributes, an untracked column
   * now and then, and a delete marker: a boolean (true or false marks a delete), a string, or none.
   */
  public DimensionSchema dimension(String name) {
    int n = dimensions++;
    List<String> names = names(9);
    List<Column> key = key(names, n);
    Column time = Column.of(names.remove(0) + "_ts", Type.TIMESTAMP);
    List<Column> attributes = new ArrayList<>();
    int nAttributes = rng.nextInt(1, 4);
    for (int i = 0; i < nAttributes; i++) {
      // every other dimension tracks a double first: -0.0 and 0.0, NaN
      attributes.add(Column.of(names.remove(0), i == 0 && n % 2 == 0 ? Type.DOUBLE : type(ATTRIBUTE_TYPES)));
    }
    attributes.forEach(a -> features.add("attribute " + a.type().kind().name().toLowerCase(java.util.Locale.ROOT)));
    List<Column> columns = new ArrayList<>(key);
    columns.add(time);
    columns.addAll(attributes);
    DeleteMarker marker = null;
    // the marker cycles: a boolean true, a string, a boolean false, another string, none
    int m = n % 5;
    if (m < 4) {
      boolean bool = m % 2 == 0;
      Column c = Column.of(names.remove(0), bool ? Type.BOOLEAN : Type.STRING);
      marker = new DeleteMarker(c, bool ? (Object) (m == 0) : m == 1 ? "D" : "deleted");
      columns.add(c);
      // the marker's value among others of its type (a string marker's in another case, empty)
      pools.put(c, bool ? List.of(true, false) : List.of(marker.value(), "d", "U", ""));
      features.add(bool ? "boolean marker" : "string marker");
    } else {
      features.add("no marker");
    }
    if (rng.nextInt(3) == 0) {
      columns.add(Column.of(names.remove(0), type(OTHER_TYPES)));
    }
    Collections.shuffle(columns, new java.util.Random(rng.nextLong()));
    List<Column> required = new ArrayList<>(key);
    required.add(time);
    return new DimensionSchema(new FeedSchema(name, new Schema(columns), key, time, required), attributes, marker);
  }

  /** A window a pipeline file can declare (whole seconds), mostly not a divisor of an hour. */
  public Duration window() {
    return switch (rng.nextInt(5)) {
      case 0 -> Duration.ofSeconds(rng.nextInt(1, 120));
      case 1 -> Duration.ofSeconds(rng.nextInt(2, 60) * 60L + rng.nextInt(60));
      case 2 -> Duration.ofMinutes(rng.nextInt(1, 180));
      case 3 -> Duration.ofSeconds(rng.nextLong(3_600, 3 * 86_400));
      default -> Duration.ofDays(rng.nextInt(1, 3));
    };
  }

  private List<String> names(int n) {
    List<String> all = new ArrayList<>(Arrays.asList(NAMES));
    all.removeAll(avoided);
    Collections.shuffle(all, new java.util.Random(rng.nextLong()));
    return new ArrayList<>(all.subList(0, n));
  }

  private String measureName(Set<String> taken) {
    String n;
    do {
      n = rng.nextBoolean() ? NAMES[rng.nextInt(NAMES.length)] : "m" + rng.nextInt(10);
    } while (avoided.contains(n) || !taken.add(n));
    return n;
  }

  /** A type of {@code types}; null there stands for a decimal of random precision and scale. */
  private Type type(Type[] types) {
    Type t = types[rng.nextInt(types.length)];
    if (t != null) {
      return t;
    }
    int precision = rng.nextInt(1, Type.MAX_PRECISION + 1);
    return Type.decimal(precision, rng.nextInt(0, precision + 1));
  }

  private <T> List<T> pick(List<T> from, int n) {
    List<T> all = new ArrayList<>(from);
    Collections.shuffle(all, new java.util.Random(rng.nextLong()));
    return all.subList(0, n);
  }

  // ---- rows

  /** Records of a fact feed, in its columns' order: required columns never null, others now and then. */
  public List<List<Object>> records(Fact fact, int n) {
    return rows(fact.feed(), n, fact.aggregations().get(0).windows().size());
  }

  /** Changes of a dimension as they land (rows of its feed's columns, the marker's column as it came). */
  public List<List<Object>> changes(DimensionSchema d, int n) {
    return rows(d.feed(), n, Duration.ofMinutes(rng.nextInt(1, 90)));
  }

  private List<List<Object>> rows(FeedSchema feed, int n, Duration spacing) {
    List<List<Object>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<Object> row = new ArrayList<>();
      for (Column c : feed.columns().columns()) {
        row.add(c.equals(feed.eventTime()) ? oneOf(instants(feed, spacing)) : value(c, !feed.isRequired(c)));
      }
      out.add(row);
    }
    return out;
  }

  /**
   * A few instants around the boundaries of windows of {@code spacing}: on a boundary, a microsecond either side,
   * anywhere in between; near the epoch (before and after it) or in 2026.
   */
  private List<Instant> instants(FeedSchema feed, Duration spacing) {
    return instants.computeIfAbsent(feed, f -> {
      long size = spacing.toNanos() / 1_000;
      long base = rng.nextBoolean() ? 0 : 1_767_225_600_000_000L;
      base -= Math.floorMod(base, size);
      List<Instant> out = new ArrayList<>();
      for (int i = rng.nextInt(3, 8); i > 0; i--) {
        long k = rng.nextInt(-2, 3);
        long micros = base + k * size + switch (rng.nextInt(4)) {
          case 0 -> 0;
          case 1 -> -1;
          case 2 -> 1;
          default -> rng.nextLong(0, size);
        };
        out.add(io.tidemark.core.Times.ofMicros(micros));
      }
      return out;
    });
  }

  /** A value of the column, from its few; null now and then when it may be. */
  public Object value(Column c, boolean nullable) {
    if (nullable && rng.nextInt(8) == 0) {
      return null;
    }
    return oneOf(pools.computeIfAbsent(c, this::pool));
  }

  /** A column's few values: 2-4 of its type's (so that rows collide), the same for every row of the declaration. */
  private List<Object> pool(Column c) {
    Type t = c.type();
    List<Object> universe = new ArrayList<>();
    switch (t.kind()) {
      case INT -> Arrays.stream(INTS).forEach(universe::add);
      case BIGINT -> Arrays.stream(LONGS).forEach(universe::add);
      case DOUBLE -> Arrays.stream(rng.nextBoolean() ? EXACT_DOUBLES : INEXACT_DOUBLES).forEach(universe::add);
      case STRING -> universe.addAll(Arrays.asList(STRINGS));
      case DATE -> universe.addAll(Arrays.asList(DATES));
      case BOOLEAN -> universe.addAll(List.of(true, false));
      case DECIMAL -> universe.addAll(decimals(t));
      case TIMESTAMP -> {
        for (int i = 0; i < 5; i++) {
          universe.add(io.tidemark.core.Times.ofMicros(rng.nextLong(-86_400_000_000L, 86_400_000_000L)));
        }
      }
      default -> throw new IllegalArgumentException(t.sql());
    }
    Set<Object> out = new LinkedHashSet<>();
    int n = Math.min(universe.size(), rng.nextInt(2, 5));
    if (t.kind() == Type.Kind.DOUBLE) {
      // -0.0 and 0.0 side by side, NaN: what SQL's equality and order settle otherwise than Java's
      out.add(-0.0);
      out.add(0.0);
    }
    if (t.kind() == Type.Kind.STRING && rng.nextBoolean()) {
      out.add("\uff21");
      out.add("\ud83d\ude00");
    }
    while (out.size() < n + (t.kind() == Type.Kind.DOUBLE ? 2 : 0)) {
      out.add(universe.get(rng.nextInt(universe.size())));
    }
    return new ArrayList<>(out);
  }

  /**
   * Decimals of the type (its scale): zero, one unit either side, the greatest and least of its precision (kept to
   * 35 digits, so that a sum of a thousand fits its type, decimal(p+10,s) up to 38), and one in between.
   */
  private List<Object> decimals(Type t) {
    int digits = Math.min(t.precision(), 35);
    BigInteger max = BigInteger.TEN.pow(digits).subtract(BigInteger.ONE);
    BigInteger some = new BigInteger(max.bitLength(), new java.util.Random(rng.nextLong())).mod(max.max(BigInteger.ONE));
    List<Object> out = new ArrayList<>();
    for (BigInteger u : List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate(), max, max.negate(), some)) {
      out.add(new BigDecimal(u, t.scale()));
    }
    return out;
  }

  private <T> T oneOf(List<T> values) {
    return values.get(rng.nextInt(values.size()));
  }

  // ---- reading and comparing

  /** A row of {@code schema}'s columns as the rules read it. */
  public static Fields fields(Schema schema, List<Object> row) {
    return name -> row.get(schema.index(name));
  }

  /**
   * The row as another engine may be handed it: each decimal as an equal value written otherwise (trailing zeros
   * added or stripped), which the engine reads in its column's scale.
   */
  public List<Object> otherwiseWritten(List<Object> row) {
    List<Object> out = new ArrayList<>(row);
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i) instanceof BigDecimal d) {
        BigDecimal other = rng.nextBoolean() ? d.setScale(d.scale() + rng.nextInt(1, 3)) : d.stripTrailingZeros();
        out.set(i, other.scale() < 0 ? other.setScale(0) : other);
      }
    }
    return out;
  }

  /** Values as SQL's equality tells them apart: -0.0 is 0.0 (NaN is NaN, as Java's Double.equals has it too). */
  public static List<Object> sql(List<Object> values) {
    List<Object> out = new ArrayList<>(values.size());
    for (Object v : values) {
      out.add(v instanceof Double d && d == 0.0 ? (Object) 0.0 : v instanceof List<?> l ? sql(cast(l)) : v);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> cast(List<?> l) {
    return (List<Object>) l;
  }

  /** A declaration for a test's message. */
  public static String describe(FeedSchema feed) {
    return feed.name() + "(" + feed.columns().ddl() + "; key " + feed.keyList() + "; time " + feed.eventTime() + ")";
  }

  public static String describe(Aggregation a) {
    return "per " + a.groupBy() + " and " + a.windows().size() + ": " + a.measures();
  }

  public static String describe(DimensionSchema d) {
    return describe(d.feed()) + " tracking " + d.attributes() + (d.delete() == null ? "" : ", delete when "
        + d.delete().column() + " = " + d.delete().value());
  }
}
