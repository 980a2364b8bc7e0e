package io.tidemark.publish;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.testing.DuckOracle;
import io.tidemark.testing.Scd2Oracle;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What a reader sees of one pipeline at one Nessie commit (every table read at {@code ref#hash}), and whether the
 * tables a stream derives from a dataset are what the streams make of that commit's raw archive. The streams are
 * functions of the arrivals they have read, one micro-batch per arrival (availableNow), so a derived table at a commit
 * equals its oracle over the raw archive at the same commit exactly when both took in the same arrivals:
 * <ul>
 *   <li>events = DuckOracle's dedup of the raw events, arrival by arrival under the dedup watermark;</li>
 *   <li>event counts = DuckOracle's counts of the raw events (not deduplicated, late ones under each arrival's
 *       watermark dropped, windows up to the last arrival's watermark);</li>
 *   <li>companies = Scd2Oracle over the raw company changes, and = Scd2Oracle over the change log.</li>
 * </ul>
 * Counts of arrival k next to raw events of arrival k-1 miss nothing only when arrival k finalized no window and
 * counted no event; then a reader cannot tell either, since the tables hold the same rows.
 */
final class CommitView {
  private static final String ISO = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'";

  final String hash;
  /** The raw events' valid lines as JSON, by arrival. */
  final Map<Integer, List<String>> rawEvents;
  final Map<Integer, List<String>> rawChanges;
  final List<String> events;
  final List<String> counts;
  final List<String> companies;
  final List<String> changeLog;
  /** Each stream's newest arrival in the stream-batches table. */
  final Map<String, Integer> recorded;

  CommitView(SparkSession spark, TidemarkConfig config, String ref, String hash) {
    this.hash = hash;
    SeedTables t = SeedTables.of(config);
    rawEvents = byArrival(spark, "SELECT arrival, to_json(named_struct('event_id', event_id, 'company_id', company_id, "
        + "'amount', amount, 'event_ts', date_format(event_ts, \"" + ISO + "\"))) FROM "
        + t.rawEvents().sqlAt(ref, hash));
    rawChanges = byArrival(spark, "SELECT arrival, " + changeJson() + " FROM "
        + t.rawCompanyChanges().sqlAt(ref, hash));
    events = strings(spark, "SELECT concat_ws('|', CAST(event_id AS STRING), coalesce(company_id, 'NULL'), "
        + "coalesce(CAST(amount AS STRING), 'NULL'), date_format(event_ts, 'yyyy-MM-dd HH:mm:ss')) FROM "
        + t.events().sqlAt(ref, hash) + " ORDER BY event_id, 1");
    counts = strings(spark, "SELECT concat_ws('|', coalesce(company_id, 'NULL'), date_format(w_start, "
        + "'yyyy-MM-dd HH:mm:ss'), CAST(n AS STRING)) FROM " + t.eventCounts().sqlAt(ref, hash)
        + " ORDER BY 1");
    companies = strings(spark, "SELECT concat_ws('|', company_id, coalesce(name, 'NULL'), coalesce(tier, 'NULL'), "
        + "date_format(valid_from, 'yyyy-MM-dd HH:mm:ss'), coalesce(date_format(valid_to, 'yyyy-MM-dd HH:mm:ss'), "
        + "'NULL'), CAST(is_current AS STRING)) AS r FROM " + t.companies().sqlAt(ref, hash)
        + " ORDER BY r");
    changeLog = strings(spark, "SELECT " + changeJson() + " FROM " + t.companyChanges().sqlAt(ref, hash));
    recorded = new TreeMap<>();
    for (Row r : spark.sql("SELECT stream, max(arrival) FROM " + t.streamBatches().sqlAt(ref, hash)
        + " WHERE arrival IS NOT NULL GROUP BY stream").collectAsList()) {
      recorded.put(r.getString(0), r.getInt(1));
    }
  }

  private static String changeJson() {
    return "to_json(named_struct('company_id', company_id, 'name', name, 'tier', tier, 'change_ts', "
        + "date_format(change_ts, \"" + ISO + "\"), 'deleted', deleted))";
  }

  /** The newest arrival in a raw archive, 0 for none. */
  static int newest(Map<Integer, List<String>> byArrival) {
    return byArrival.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
  }

  /**
   * Where the derived tables are not what the streams make of this commit's raw archive (empty: they agree), each
   * said as "table: expected N rows, found M (first difference)". {@code dir} takes the oracles' input files.
   */
  List<String> disagreements(Path dir) throws SQLException {
    List<String> out = new ArrayList<>();
    Path d = dir.resolve(hash);
    List<List<Path>> runs = new ArrayList<>();
    int last = newest(rawEvents);
    for (int a = 1; a <= last; a++) {
      runs.add(rawEvents.containsKey(a) ? List.of(write(d.resolve("events-" + a + ".jsonl"), rawEvents.get(a)))
          : List.of());
    }
    try (DuckOracle oracle = new DuckOracle(runs)) {
      compare(out, "events", oracle.dedup(Seed.EVENTS_FEED.dedupWatermark()), events);
      compare(out, "event counts", oracle.counts(Seed.COUNTS_AGGREGATE.watermark(), Seed.COUNTS.windows().size()),
          counts);
    }
    List<String> changes = rawChanges.values().stream().flatMap(List::stream).toList();
    try (Scd2Oracle fromRaw = new Scd2Oracle(List.of(write(d.resolve("changes.jsonl"), changes)));
         Scd2Oracle fromLog = new Scd2Oracle(List.of(write(d.resolve("change-log.jsonl"), changeLog)))) {
      compare(out, "companies (from the raw changes)", fromRaw.history(), companies);
      compare(out, "companies (from the change log)", fromLog.history(), companies);
    }
    return out;
  }

  private static void compare(List<String> out, String what, List<String> expected, List<String> found) {
    if (!expected.equals(found)) {
      List<String> missing = new ArrayList<>(expected);
      missing.removeAll(found);
      List<String> extra = new ArrayList<>(found);
      extra.removeAll(expected);
      out.add(what + ": expected " + expected.size() + " rows, found " + found.size() + " (missing " + missing
          + ", not expected " + extra + ")");
    }
  }

  private static Map<Integer, List<String>> byArrival(SparkSession spark, String sql) {
    Map<Integer, List<String>> out = new TreeMap<>();
    for (Row r : spark.sql(sql).collectAsList()) {
      out.computeIfAbsent(r.getInt(0), a -> new ArrayList<>()).add(r.getString(1));
    }
    return out;
  }

  private static List<String> strings(SparkSession spark, String sql) {
    List<String> out = new ArrayList<>();
    spark.sql(sql).collectAsList().forEach(r -> out.add(r.getString(0)));
    return out;
  }

  private static Path write(Path file, List<String> lines) {
    try {
      Files.createDirectories(file.getParent());
      return Files.write(file, lines);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
