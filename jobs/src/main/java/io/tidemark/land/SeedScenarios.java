package io.tidemark.land;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The scenarios of the course pages the streaming jobs are held to (../shared/seeds), as fixed JSON lines.
 * Times are 2026-01-01 UTC. Event ids do not overlap between scenarios, so they can land side by side.
 */
public final class SeedScenarios {
  /** The seed pipeline's feeds (pipelines/seed.yml), whose lines the seed scenarios are. */
  public static final String EVENTS = "events";
  public static final String COMPANIES = "companies";

  private SeedScenarios() {}

  private static String event(int id, String company, String amount, String time) {
    return "{\"event_id\":" + id + ",\"company_id\":\"" + company + "\",\"amount\":" + amount
        + ",\"event_ts\":\"2026-01-01T" + time + "Z\"}\n";
  }

  private static String change(String company, String name, String tier, String time) {
    return "{\"company_id\":\"" + company + "\",\"name\":\"" + name + "\",\"tier\":\"" + tier
        + "\",\"change_ts\":\"2026-01-01T" + time + "Z\"}\n";
  }

  private static String delete(String company, String time) {
    return "{\"company_id\":\"" + company + "\",\"change_ts\":\"2026-01-01T" + time + "Z\",\"deleted\":true}\n";
  }

  /**
   * Windowed counts: the events of an early window, then a far-future event that moves the watermark past it
   * (it finalizes: c1 n=3, c2 n=2), then a late event for that finalized window, which must not count.
   */
  public static final Scenario COUNTS = fixed("seed-counts",
      "windowed counts: early window, far-future event finalizes it, late event is dropped",
      EVENTS, List.of(
          event(1, "c1", "10.00", "00:01:00") + event(2, "c1", "11.50", "00:02:00")
              + event(3, "c1", "12.25", "00:03:30") + event(4, "c2", "20.00", "00:02:10")
              + event(5, "c2", "21.00", "00:04:50"),
          event(6, "c1", "13.00", "00:20:00"),
          event(7, "c1", "14.00", "00:03:00")));

  /**
   * Dedup: duplicate event_ids within one arrival and across arrivals, all within the 30-minute horizon;
   * exactly one row per distinct id (101..106) must remain.
   */
  public static final Scenario DEDUP = fixed("seed-dedup",
      "dedup: duplicates in one arrival and across arrivals within the 30-minute horizon",
      EVENTS, List.of(
          event(101, "c1", "5.00", "00:00:10") + event(102, "c2", "6.00", "00:00:20")
              + event(102, "c2", "6.00", "00:00:20") + event(103, "c3", "7.00", "00:00:40"),
          event(103, "c3", "7.00", "00:00:40") + event(104, "c1", "8.00", "00:06:00")
              + event(105, "c2", "9.00", "00:07:00") + event(105, "c2", "9.00", "00:07:00"),
          event(101, "c1", "5.00", "00:00:10") + event(106, "c3", "10.00", "00:08:00")));

  /**
   * SCD2: new keys; a changed attribute; an unchanged repeat; several changes of one key in one arrival; an
   * out-of-order change that splits history; a delete and a re-open; a late change that makes the next version
   * redundant.
   */
  public static final Scenario SCD2 = fixed("seed-scd2",
      "SCD2: new keys, changes, unchanged repeats, bursts, out-of-order change, delete and re-open",
      COMPANIES, List.of(
          change("c1", "Acme", "gold", "00:00:00") + change("c2", "Bolt", "silver", "00:00:00"),
          change("c1", "Acme", "platinum", "01:00:00") + change("c2", "Bolt", "silver", "01:00:00")
              + change("c3", "Cog", "bronze", "00:30:00") + change("c3", "Cog", "silver", "01:30:00")
              + change("c3", "Cog", "gold", "02:00:00"),
          change("c1", "Acme Corp", "gold", "00:30:00") + delete("c2", "03:00:00"),
          change("c2", "Bolt", "gold", "04:00:00") + change("c1", "Acme", "platinum", "00:45:00")));

  /** All three seed stories landing side by side, as the demo shows them. */
  public static final Scenario ALL = union("seed", "the three seed scenarios together", COUNTS, DEDUP, SCD2);

  public static List<Scenario> all() {
    return List.of(ALL, COUNTS, DEDUP, SCD2);
  }

  private static Scenario fixed(String name, String description, String feed, List<String> arrivals) {
    List<Arrival> list = new ArrayList<>();
    for (int i = 0; i < arrivals.size(); i++) {
      list.add(new Arrival(i + 1, List.of(LandingFile.of(feed, name + ".jsonl", arrivals.get(i)))));
    }
    return simple(name, description, List.copyOf(list));
  }

  private static Scenario union(String name, String description, Scenario... parts) {
    Map<Integer, List<LandingFile>> byArrival = new TreeMap<>();
    for (Scenario s : parts) {
      for (Arrival a : s.arrivals()) {
        byArrival.computeIfAbsent(a.number(), k -> new ArrayList<>()).addAll(a.files());
      }
    }
    List<Arrival> list = new ArrayList<>();
    byArrival.forEach((k, files) -> list.add(new Arrival(k, files)));
    return simple(name, description, List.copyOf(list));
  }

  private static Scenario simple(String name, String description, List<Arrival> arrivals) {
    return new Scenario() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description;
      }

      @Override
      public List<Arrival> arrivals() {
        return arrivals;
      }
    };
  }
}
