package io.tidemark.land;

import io.tidemark.core.Column;
import io.tidemark.core.DeleteMarker;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.JsonMembers;
import io.tidemark.core.Type;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * A deterministic generator of arrivals for any pipeline, from its declared types: per fact feed, records with
 * repeats, late records, far-future jumps and malformed lines; per dimension feed, changes with unchanged repeats,
 * out-of-order changes and deletes (when the feed has a delete marker) and malformed lines. Values are drawn per
 * column from its type: a key is unique per record (a composite key spreads it over its columns); a grouping column,
 * and any other string, takes one of {@code groups} values, a string being the column's initial and a number
 * ({@code c7}), so that a fact feed's column and a dimension's key of the same name share their values; a number a
 * measure reads is spread wide. It draws only from
 * seeded {@link SplittableRandom}s and formats without locale, so the same {@link GeneratorSpec} and pipeline give
 * byte-identical files on any machine.
 */
public final class GeneratedScenario implements Scenario {
  /** Its name for {@code land --scenario}. */
  public static final String NAME = "generated";
  /** How many values a key column other than the first takes: a composite key spreads an id over its columns. */
  private static final int KEY_SPREAD = 3;
  /** States a dimension's attribute takes. */
  private static final int STATES = 4;

  private final GeneratorSpec spec;
  private final Pipeline pipeline;
  private final String fileName;

  public GeneratedScenario(GeneratorSpec spec, Pipeline pipeline) {
    this.spec = spec;
    this.pipeline = pipeline;
    CRC32 crc = new CRC32();
    crc.update((spec + " " + pipeline.name()).getBytes(StandardCharsets.UTF_8));
    this.fileName = String.format(java.util.Locale.ROOT, "generated-%08x.jsonl", crc.getValue());
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "generated for the pipeline's feeds from their types: " + spec;
  }

  /** Without generating them: the spec says how many. */
  @Override
  public int arrivalCount() {
    return spec.arrivals();
  }

  @Override
  public List<Arrival> arrivals() {
    Map<String, List<byte[]>> perFeed = new LinkedHashMap<>();
    for (FactFeed f : pipeline.facts()) {
      perFeed.put(f.name(), new FactWriter(f, new SplittableRandom(spec.seed() ^ seedOf(f.name()))).write());
    }
    for (DimensionFeed d : pipeline.dimensions()) {
      perFeed.put(d.name(), new ChangeWriter(d.dimension(), io.tidemark.pipeline.Expectation.sets(d.expectations()),
          new SplittableRandom(spec.seed() ^ 0x9E3779B97F4A7C15L ^ seedOf(d.name()))).write());
    }
    List<Arrival> out = new ArrayList<>();
    for (int k = 0; k < spec.arrivals(); k++) {
      List<LandingFile> files = new ArrayList<>();
      for (Map.Entry<String, List<byte[]>> e : perFeed.entrySet()) {
        if (e.getValue().get(k).length > 0) {
          files.add(new LandingFile(e.getKey(), fileName, e.getValue().get(k)));
        }
      }
      out.add(new Arrival(k + 1, files));
    }
    return out;
  }

  /** The seed's first feed keeps the spec's seed as it is; another feed's differs. */
  private long seedOf(String feed) {
    return feed.equals(pipeline.feeds().get(0).name()) ? 0 : feed.hashCode() * 0xC2B2AE3D27D4EB4FL;
  }

  private long arrivalStart(int k) {
    return spec.start().getEpochSecond() + (long) k * spec.minutesPerArrival() * 60L;
  }

  /** How many of {@code total} items fall in arrival k when spread evenly. */
  private int share(int total, int k) {
    return (int) ((long) total * (k + 1) / spec.arrivals() - (long) total * k / spec.arrivals());
  }

  // ---- values from types

  /** The value a number stands for in a column: a key's id, a group's number, an attribute's state. */
  private Object valueOf(Column c, long n) {
    Type t = c.type();
    return switch (t.kind()) {
      case INT -> (int) n;
      case BIGINT -> n;
      case DOUBLE -> n + 0.5;
      case DECIMAL -> BigDecimal.valueOf(n % (long) Math.pow(10, Math.min(15, t.precision() - t.scale())))
          .setScale(t.scale());
      case STRING -> Character.toLowerCase(c.name().charAt(0)) + Long.toString(n);
      case BOOLEAN -> n % 2 == 1;
      case DATE -> LocalDate.ofInstant(spec.start(), ZoneOffset.UTC).plusDays(n);
      case TIMESTAMP -> spec.start().plusSeconds(n);
      default -> throw new IllegalArgumentException("no generated value of " + t.sql());
    };
  }

  /** A value as JSON. */
  private static String json(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof String || v instanceof Instant || v instanceof LocalDate) {
      return JsonMembers.quoted(v.toString());
    }
    return v instanceof BigDecimal d ? d.toPlainString() : v.toString();
  }

  /** A JSON line of these members, in the order given. */
  private static String line(Map<String, Object> members) {
    StringBuilder sb = new StringBuilder("{");
    members.forEach((k, v) -> {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(k).append("\":").append(json(v));
    });
    return sb.append('}').toString();
  }

  /** A key's columns for an id: the first takes most of it, each other one of {@link #KEY_SPREAD} values. */
  private Map<String, Object> key(List<Column> key, long id) {
    Map<String, Object> out = new LinkedHashMap<>();
    long rest = id;
    for (int i = key.size() - 1; i >= 1; i--) {
      out.put(key.get(i).name(), valueOf(key.get(i), rest % KEY_SPREAD + 1));
      rest /= KEY_SPREAD;
    }
    out.put(key.get(0).name(), valueOf(key.get(0), rest + 1));
    return out;
  }

  /**
   * Lines with a position key: an original line at index i has key i; a repeat gets a key after its original, so
   * sorting by key places it somewhere later in the file.
   */
  private static final class Lines {
    private final List<String> text = new ArrayList<>();
    private final List<Double> keys = new ArrayList<>();

    void add(String line, double key) {
      text.add(line);
      keys.add(key);
    }

    byte[] bytes() {
      Integer[] order = new Integer[text.size()];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Double.compare(keys.get(a), keys.get(b)));
      ByteArrayOutputStream out = new ByteArrayOutputStream(text.size() * 96);
      for (Integer i : order) {
        out.writeBytes(text.get(i).getBytes(StandardCharsets.UTF_8));
        out.write('\n');
      }
      return out.toByteArray();
    }
  }

  private final class FactWriter {
    private final FeedSchema feed;
    private final SplittableRandom rng;
    private final Set<Column> grouped = new HashSet<>();
    private long nextId = 0;

    FactWriter(FactFeed f, SplittableRandom rng) {
      this.feed = f.schema();
      this.rng = rng;
      f.aggregates().forEach(a -> grouped.addAll(a.rule().groupBy()));
    }

    List<byte[]> write() {
      List<byte[]> out = new ArrayList<>();
      List<String> carried = new ArrayList<>();
      // jump i goes to arrival (i+1)*arrivals/(jumps+1), so that later arrivals feel it
      int[] jumpsIn = new int[spec.arrivals()];
      for (int i = 0; i < spec.jumps(); i++) {
        jumpsIn[Math.min(spec.arrivals() - 1, (i + 1) * spec.arrivals() / (spec.jumps() + 1))]++;
      }
      for (int k = 0; k < spec.arrivals(); k++) {
        Lines lines = new Lines();
        for (String dup : carried) {
          lines.add(dup, rng.nextDouble() * 10);
        }
        carried = new ArrayList<>();
        int n = share(spec.events(), k);
        long start = arrivalStart(k);
        long span = spec.minutesPerArrival() * 60L;
        for (int j = 0; j < n; j++) {
          long clock = start + span * j / Math.max(1, n);
          long t;
          if (j >= n - jumpsIn[k]) {
            t = start + span + 45 * 60;
          } else if (rng.nextDouble() < spec.lateRate()) {
            t = clock - rng.nextInt(12 * 60, 90 * 60 + 1);
          } else {
            t = clock + rng.nextInt(-120, 121);
          }
          t = Math.max(t, spec.start().getEpochSecond());
          Map<String, Object> record = record(nextId++, t);
          String line = line(record);
          double key = j;
          lines.add(line, key);
          if (rng.nextDouble() < spec.duplicateRate()) {
            if (rng.nextBoolean() || k == spec.arrivals() - 1) {
              lines.add(line, key + rng.nextDouble() * (n - j));
            } else {
              carried.add(line);
            }
          }
          if (rng.nextDouble() < spec.malformedRate()) {
            lines.add(malformed(line, record), key + 0.5);
          }
        }
        out.add(lines.bytes());
      }
      return out;
    }

    private Map<String, Object> record(long id, long t) {
      Map<String, Object> keyValues = key(feed.key(), id);
      Instant at = Instant.ofEpochSecond(t);
      Map<String, Object> out = new LinkedHashMap<>();
      for (Column c : feed.columns().columns()) {
        if (keyValues.containsKey(c.name())) {
          out.put(c.name(), keyValues.get(c.name()));
        } else if (c.equals(feed.eventTime())) {
          out.put(c.name(), at);
        } else if (!feed.isRequired(c) && rng.nextDouble() < 0.02) {
          // an optional field sometimes missing
          continue;
        } else {
          out.put(c.name(), other(c, at));
        }
      }
      return out;
    }

    /** A column that is neither key nor event time: a group's value, or a measure's spread wide. */
    private Object other(Column c, Instant at) {
      if (grouped.contains(c) || c.type().equals(Type.STRING)) {
        return valueOf(c, rng.nextInt(spec.groups()) + 1);
      }
      Type t = c.type();
      return switch (t.kind()) {
        case INT -> rng.nextInt(1, 1000);
        case BIGINT -> rng.nextLong(1, 1_000_000_000_000L);
        case DOUBLE -> rng.nextInt(1, 100_000) / 100.0;
        case DECIMAL -> BigDecimal.valueOf(rng.nextLong(1, (long) Math.pow(10, Math.min(12, t.precision()))),
            t.scale()).min(BigDecimal.TEN.pow(t.precision() - t.scale()).subtract(BigDecimal.ONE));
        case BOOLEAN -> rng.nextBoolean();
        case DATE -> LocalDate.ofInstant(at, ZoneOffset.UTC);
        case TIMESTAMP -> at.minusSeconds(rng.nextInt(0, 3601));
        default -> null;
      };
    }

    private String malformed(String valid, Map<String, Object> record) {
      Map<String, Object> broken = new LinkedHashMap<>(record);
      String key = feed.key().get(0).name();
      return switch (rng.nextInt(6)) {
        case 0 -> "### corrupted record " + rng.nextInt(1000) + " ###";
        case 1 -> valid.substring(0, valid.length() / 2);
        case 2 -> {
          broken.remove(key);
          yield line(broken);
        }
        case 3 -> {
          broken.remove(feed.eventTime().name());
          yield line(broken);
        }
        case 4 -> {
          broken.put(feed.eventTime().name(), "yesterday");
          yield line(broken);
        }
        default -> {
          if (feed.key().get(0).type().equals(Type.STRING)) {
            broken.remove(key);
          } else {
            broken.put(key, "id-" + rng.nextInt(1_000_000));
          }
          yield line(broken);
        }
      };
    }
  }

  private final class ChangeWriter {
    private final DimensionSchema d;
    /** The values a row expectation allows an attribute ({@code tier IN ('bronze', ...)}), by attribute. */
    private final Map<String, List<String>> sets;
    private final SplittableRandom rng;
    private final Map<Integer, List<Object>> current = new HashMap<>();
    private final Map<Integer, Long> latest = new HashMap<>();

    ChangeWriter(DimensionSchema d, Map<String, List<String>> sets, SplittableRandom rng) {
      this.d = d;
      this.sets = sets;
      this.rng = rng;
    }

    List<byte[]> write() {
      List<byte[]> out = new ArrayList<>();
      DeleteMarker marker = d.delete();
      for (int k = 0; k < spec.arrivals(); k++) {
        Lines lines = new Lines();
        int n = share(spec.changes(), k);
        long start = arrivalStart(k);
        long span = spec.minutesPerArrival() * 60L;
        for (int j = 0; j < n; j++) {
          long clock = start + span * j / Math.max(1, n);
          int key = rng.nextInt(spec.keys());
          List<Object> state = current.get(key);
          double p = rng.nextDouble();
          String line;
          if (state != null && p < 0.10) {
            line = change(key, state, clock, false);
          } else if (state != null && marker != null && p < 0.13) {
            line = change(key, state, clock, true);
            current.remove(key);
          } else if (state != null && p < 0.18) {
            long t = Math.max(spec.start().getEpochSecond(), latest.get(key) - rng.nextInt(60, 3601));
            line = change(key, states(), t, false);
          } else {
            List<Object> next = states();
            current.put(key, next);
            line = change(key, next, clock, false);
          }
          latest.merge(key, clock, Math::max);
          lines.add(line, j);
          if (rng.nextDouble() < spec.malformedRate()) {
            lines.add(malformed(key, clock), j + 0.5);
          }
        }
        out.add(lines.bytes());
      }
      return out;
    }

    private List<Object> states() {
      List<Object> out = new ArrayList<>();
      // an attribute a rule keeps in a set takes its states from the set: generated changes are not held by it
      for (Column a : d.attributes()) {
        int n = rng.nextInt(STATES) + 1;
        List<String> set = sets.get(a.name());
        out.add(set == null || set.isEmpty() ? valueOf(a, n) : set.get((n - 1) % set.size()));
      }
      return out;
    }

    private String change(int key, List<Object> state, long t, boolean delete) {
      Map<String, Object> keyValues = key(d.key(), key);
      Map<String, Object> out = new LinkedHashMap<>();
      for (Column c : d.feed().columns().columns()) {
        int a = d.attributes().indexOf(c);
        if (keyValues.containsKey(c.name())) {
          out.put(c.name(), keyValues.get(c.name()));
        } else if (c.equals(d.changeTime())) {
          out.put(c.name(), Instant.ofEpochSecond(t));
        } else if (d.delete() != null && c.equals(d.delete().column())) {
          if (delete) {
            out.put(c.name(), d.delete().value());
          }
        } else if (a >= 0 && !delete) {
          out.put(c.name(), state.get(a));
        }
      }
      return line(out);
    }

    private String malformed(int key, long t) {
      Map<String, Object> broken = new LinkedHashMap<>(key(d.key(), key));
      broken.put(d.changeTime().name(), Instant.ofEpochSecond(t));
      return switch (rng.nextInt(4)) {
        case 0 -> "<html>not a change</html>";
        case 1 -> {
          broken.remove(d.key().get(0).name());
          yield line(broken);
        }
        case 2 -> {
          broken.remove(d.changeTime().name());
          yield line(broken);
        }
        default -> {
          broken.put(d.changeTime().name(), "soon");
          yield line(broken);
        }
      };
    }
  }
}
