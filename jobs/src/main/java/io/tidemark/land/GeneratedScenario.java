package io.tidemark.land;

import io.tidemark.core.Feed;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * A deterministic generator of arrivals for tests and benchmarks: events with duplicates, late events,
 * far-future jumps and malformed lines, and company dimension changes with unchanged repeats, out-of-order
 * changes and deletes. It draws only from seeded {@link SplittableRandom}s and formats without locale, so the
 * same {@link GeneratorSpec} gives byte-identical files on any machine.
 */
public final class GeneratedScenario implements Scenario {
  /** Its name for {@code land --scenario}. */
  public static final String NAME = "generated";

  private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};
  private static final String[] SUFFIXES = {"", " Inc", " Ltd", " Group", " Holdings"};

  private final GeneratorSpec spec;
  private final String fileName;

  public GeneratedScenario(GeneratorSpec spec) {
    this.spec = spec;
    CRC32 crc = new CRC32();
    crc.update(spec.toString().getBytes(StandardCharsets.UTF_8));
    this.fileName = String.format(java.util.Locale.ROOT, "generated-%08x.jsonl", crc.getValue());
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "generated: " + spec;
  }

  /** Without generating them: the spec says how many. */
  @Override
  public int arrivalCount() {
    return spec.arrivals();
  }

  @Override
  public List<Arrival> arrivals() {
    List<byte[]> events = new EventWriter(new SplittableRandom(spec.seed())).write();
    List<byte[]> changes = new ChangeWriter(new SplittableRandom(spec.seed() ^ 0x9E3779B97F4A7C15L)).write();
    List<Arrival> out = new ArrayList<>();
    for (int k = 0; k < spec.arrivals(); k++) {
      List<LandingFile> files = new ArrayList<>();
      if (events.get(k).length > 0) {
        files.add(new LandingFile(Feed.EVENTS, fileName, events.get(k)));
      }
      if (changes.get(k).length > 0) {
        files.add(new LandingFile(Feed.COMPANIES, fileName, changes.get(k)));
      }
      out.add(new Arrival(k + 1, files));
    }
    return out;
  }

  private long arrivalStart(int k) {
    return spec.start().getEpochSecond() + (long) k * spec.minutesPerArrival() * 60L;
  }

  /** How many of {@code total} items fall in arrival k when spread evenly. */
  private int share(int total, int k) {
    return (int) ((long) total * (k + 1) / spec.arrivals() - (long) total * k / spec.arrivals());
  }

  private static String ts(long epochSecond) {
    return Instant.ofEpochSecond(epochSecond).toString();
  }

  /**
   * Lines with a position key: an original line at index i has key i; a duplicate gets a key after its
   * original, so sorting by key places it somewhere later in the file.
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

  private final class EventWriter {
    private final SplittableRandom rng;
    private int nextId = 1;

    EventWriter(SplittableRandom rng) {
      this.rng = rng;
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
          String line = event(nextId++, t);
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
            lines.add(malformed(line, t), key + 0.5);
          }
        }
        out.add(lines.bytes());
      }
      return out;
    }

    private String event(int id, long t) {
      int company = rng.nextInt(spec.companies()) + 1;
      BigDecimal amount = BigDecimal.valueOf(rng.nextInt(1, 100_000), 2);
      return "{\"event_id\":" + id + ",\"company_id\":\"c" + company + "\",\"amount\":" + amount.toPlainString()
          + ",\"event_ts\":\"" + ts(t) + "\"}";
    }

    private String malformed(String valid, long t) {
      int id = 900_000_000 + rng.nextInt(1_000_000);
      return switch (rng.nextInt(6)) {
        case 0 -> "### corrupted record " + rng.nextInt(1000) + " ###";
        case 1 -> valid.substring(0, valid.length() / 2);
        case 2 -> "{\"company_id\":\"c1\",\"amount\":1.00,\"event_ts\":\"" + ts(t) + "\"}";
        case 3 -> "{\"event_id\":" + id + ",\"company_id\":\"c1\",\"amount\":1.00}";
        case 4 -> "{\"event_id\":" + id + ",\"company_id\":\"c1\",\"amount\":1.00,\"event_ts\":\"yesterday\"}";
        default -> "{\"event_id\":\"id-" + id + "\",\"company_id\":\"c1\",\"amount\":1.00,\"event_ts\":\""
            + ts(t) + "\"}";
      };
    }
  }

  private final class ChangeWriter {
    private final SplittableRandom rng;
    private final Map<Integer, String[]> current = new HashMap<>();
    private final Map<Integer, Long> latest = new HashMap<>();

    ChangeWriter(SplittableRandom rng) {
      this.rng = rng;
    }

    List<byte[]> write() {
      List<byte[]> out = new ArrayList<>();
      for (int k = 0; k < spec.arrivals(); k++) {
        Lines lines = new Lines();
        int n = share(spec.changes(), k);
        long start = arrivalStart(k);
        long span = spec.minutesPerArrival() * 60L;
        for (int j = 0; j < n; j++) {
          long clock = start + span * j / Math.max(1, n);
          int key = rng.nextInt(spec.keys()) + 1;
          String[] state = current.get(key);
          double p = rng.nextDouble();
          String line;
          if (state != null && p < 0.10) {
            line = change(key, state[0], state[1], clock);
          } else if (state != null && p < 0.13) {
            line = "{\"company_id\":\"c" + key + "\",\"change_ts\":\"" + ts(clock) + "\",\"deleted\":true}";
            current.remove(key);
          } else if (state != null && p < 0.18) {
            long t = Math.max(spec.start().getEpochSecond(), latest.get(key) - rng.nextInt(60, 3601));
            line = change(key, name(key), TIERS[rng.nextInt(TIERS.length)], t);
          } else {
            String[] next = {name(key), TIERS[rng.nextInt(TIERS.length)]};
            current.put(key, next);
            line = change(key, next[0], next[1], clock);
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

    private String name(int key) {
      return "Company " + key + SUFFIXES[rng.nextInt(SUFFIXES.length)];
    }

    private String change(int key, String name, String tier, long t) {
      return "{\"company_id\":\"c" + key + "\",\"name\":\"" + name + "\",\"tier\":\"" + tier
          + "\",\"change_ts\":\"" + ts(t) + "\"}";
    }

    private String malformed(int key, long t) {
      return switch (rng.nextInt(4)) {
        case 0 -> "<html>not a change</html>";
        case 1 -> "{\"name\":\"Nobody\",\"tier\":\"gold\",\"change_ts\":\"" + ts(t) + "\"}";
        case 2 -> "{\"company_id\":\"c" + key + "\",\"name\":\"X\",\"tier\":\"gold\"}";
        default -> "{\"company_id\":\"c" + key + "\",\"name\":\"X\",\"tier\":\"gold\",\"change_ts\":\"soon\"}";
      };
    }
  }
}
