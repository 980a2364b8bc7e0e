package io.tidemark.report;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.KeySurvey;
import io.tidemark.core.Measure;
import io.tidemark.core.RestatementRecords;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.BatchRecord;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.StreamBatches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The pipeline's report: one HTML page that opens without a server (its charts are PNG images inside it, drawn by
 * {@link Charts}), from the stream-batches table (every micro-batch of every stream run), the restatement log and the
 * tables' Iceberg metadata, on the configured branch: time per stream per arrival; late rows dropped per arrival next
 * to what the restatements recovered; state size over the runs; the watermarks against the newest event times; data
 * files per table before and after the last compaction; and per arrival the lines its stream runs printed.
 */
public final class PipelineReport {
  /** What one restatement run corrected, and the newest arrival the streams had run before it. */
  public record Restatement(String runId, Instant at, int afterArrival, long windows, long rowsCounted, long records,
                            long changes) {}

  /** A table's data files now, and before and after its last compaction (null: never compacted). */
  public record Files(TableName table, long dataFiles, long deleteFiles, Long beforeCompaction, Long afterCompaction,
                      Instant compactedAt) {}

  private PipelineReport() {}

  /** Where a command writes the report unless told otherwise: {@code <home>/reports/pipeline.html}. */
  public static Path defaultPath(TidemarkConfig config) {
    return config.home().resolve("reports").resolve("pipeline.html");
  }

  /** Reads what the report shows and writes the page to {@code page}; the page's path. */
  public static Path write(SparkSession spark, TidemarkConfig config, Path page) throws IOException {
    Pipeline p = config.pipeline();
    List<BatchRecord> records = StreamBatches.read(spark, p.shared().streamBatches());
    List<Restatement> restatements = restatements(spark, p, records);
    List<Files> files = new ArrayList<>();
    for (TableName table : p.tables()) {
      files.add(files(IcebergTables.load(spark, table), table));
    }
    String html = html(config, records, restatements, files, RescuedKeys.of(spark, p),
        ExpectationsSection.html(spark, p));
    Path dir = page.toAbsolutePath().getParent();
    java.nio.file.Files.createDirectories(dir);
    // whole or not at all: a browser (or a test) may have the previous one open
    Path tmp = dir.resolve("." + page.getFileName() + ".tmp");
    java.nio.file.Files.writeString(tmp, html, StandardCharsets.UTF_8);
    java.nio.file.Files.move(tmp, page, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return page;
  }

  /** The first of a window's measures as the restatement log writes them ({@code 6|12.5|...}). */
  private static long firstCount(String measures) {
    int bar = measures.indexOf('|');
    return Long.parseLong(bar < 0 ? measures : measures.substring(0, bar));
  }

  /**
   * Each restatement run in the log: its windows, records and dimension changes corrected, and the rows its windows
   * counted more (of aggregates whose first measure is a count).
   */
  static List<Restatement> restatements(SparkSession spark, Pipeline p, List<BatchRecord> records) {
    Set<String> windowTables = new HashSet<>();
    Set<String> counted = new HashSet<>();
    p.aggregates().forEach(a -> {
      windowTables.add(a.table().toString());
      if (a.rule().measures().get(0).function() == Measure.Function.COUNT) {
        counted.add(a.table().toString());
      }
    });
    Set<String> recordTables = new HashSet<>();
    p.facts().forEach(f -> recordTables.add(f.dedupTable().toString()));
    Set<String> dimensionTables = new HashSet<>();
    p.dimensions().forEach(d -> dimensionTables.add(d.table().toString()));
    Map<String, long[]> counts = new LinkedHashMap<>();
    Map<String, Instant> at = new LinkedHashMap<>();
    for (Row r : spark.sql("SELECT " + RestatementRecords.RUN_ID + ", " + RestatementRecords.TARGET_TABLE + ", "
        + RestatementRecords.OLD_VALUE + ", " + RestatementRecords.NEW_VALUE + ", " + RestatementRecords.CORRECTED_AT
        + " FROM " + p.shared().restatementLog().sql() + " ORDER BY " + RestatementRecords.CORRECTED_AT + ", "
        + RestatementRecords.RUN_ID).collectAsList()) {
      String run = r.getString(0);
      String target = r.getString(1);
      long[] c = counts.computeIfAbsent(run, k -> new long[4]);
      at.merge(run, r.<Timestamp>getAs(4).toInstant(), (a, b) -> a.isBefore(b) ? a : b);
      if (windowTables.contains(target)) {
        c[0]++;
        if (counted.contains(target)) {
          c[1] += firstCount(r.getString(3)) - (r.isNullAt(2) ? 0 : firstCount(r.getString(2)));
        }
      } else if (recordTables.contains(target)) {
        c[2]++;
      } else if (dimensionTables.contains(target)) {
        c[3]++;
      }
    }
    List<Restatement> out = new ArrayList<>();
    counts.forEach((run, c) -> {
      Instant when = at.get(run);
      int after = records.stream().filter(b -> b.arrival() != null && !b.endedAt().isAfter(when))
          .mapToInt(BatchRecord::arrival).max().orElse(0);
      out.add(new Restatement(run, when, after, c[0], c[1], c[2], c[3]));
    });
    return out;
  }

  /**
   * The table's files now, and around its last compaction: the newest run of rewrites (Iceberg's "replace"
   * snapshots: data files, delete files, manifests) in its history, and the snapshot before it.
   */
  static Files files(Table table, TableName name) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new Files(name, 0, 0, null, null, null);
    }
    Snapshot newestRewrite = null;
    Snapshot before = null;
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      boolean rewrite = DataOperations.REPLACE.equals(s.operation());
      if (newestRewrite == null) {
        if (rewrite) {
          newestRewrite = s;
        }
      } else if (!rewrite) {
        before = s;
        break;
      }
    }
    return new Files(name, number(current, SnapshotSummary.TOTAL_DATA_FILES_PROP), number(current, SnapshotSummary.TOTAL_DELETE_FILES_PROP),
        newestRewrite == null ? null : before == null ? 0L : number(before, SnapshotSummary.TOTAL_DATA_FILES_PROP),
        newestRewrite == null ? null : number(newestRewrite, SnapshotSummary.TOTAL_DATA_FILES_PROP),
        newestRewrite == null ? null : Instant.ofEpochMilli(newestRewrite.timestampMillis()));
  }

  private static long number(Snapshot s, String key) {
    return Long.parseLong(s.summary().getOrDefault(key, "0"));
  }

  static String html(TidemarkConfig config, List<BatchRecord> records, List<Restatement> restatements,
                     List<Files> files, List<KeySurvey.Finding> keys) throws IOException {
    return html(config, records, restatements, files, keys, "");
  }

  /** The same, with the expectations' section ({@link ExpectationsSection}) after the watermarks. */
  static String html(TidemarkConfig config, List<BatchRecord> records, List<Restatement> restatements,
                     List<Files> files, List<KeySurvey.Finding> keys, String expectations) throws IOException {
    SortedMap<Integer, List<RunReport>> arrivals = ArrivalRuns.of(records, config.pipeline().streamNames());
    StringBuilder body = new StringBuilder();
    long runs = records.stream().map(r -> r.stream() + "/" + r.runId()).distinct().count();
    body.append("<h1>tidemark pipeline report</h1>\n<p class=\"meta\">Branch <b>").append(esc(config.nessieRef()))
        .append("</b>, written ").append(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
        .append(": ").append(records.size()).append(" micro-batch(es) of ").append(runs).append(" stream run(s) in ")
        .append(esc(config.pipeline().shared().streamBatches().toString())).append(", ").append(restatements.size())
        .append(" restatement(s) in ").append(esc(config.pipeline().shared().restatementLog().toString())).append(".</p>\n");
    if (arrivals.isEmpty()) {
      body.append("<p>No stream run recorded yet: land an arrival and run <code>tidemark stream all</code>.</p>\n");
    } else {
      List<String> categories = arrivals.keySet().stream().map(String::valueOf).toList();
      body.append(section("Time per stream per arrival", "Each stream's own time for the arrival (the sum of its "
          + "micro-batches; <code>stream all</code> runs the streams at once, so they overlap).",
          Charts.png(new Charts.Bars("time per stream per arrival", "arrival", "seconds", categories,
              perStream(arrivals, r -> r.records().stream().mapToLong(b -> BatchRecord.orZero(b.durationMs())).sum()
                  / 1000.0)))));
      body.append(section("Late rows dropped, and what the restatements recovered", "What each stream's watermark "
          + "dropped, per arrival (an aggregate drops a partial window per window and group, a dedup records, an "
          + "SCD2 stream changes), next to what each restatement corrected, shown at the arrival after which it ran: "
          + "windows recomputed (for the aggregates), record keys (for the dedups), changes applied (for the "
          + "dimensions).", Charts.png(late(arrivals, restatements))));
      body.append(section("State size over the runs", "Rows and memory of the stateful operators' state after "
          + "each arrival's run: bounded state stays flat as arrivals go by.",
          Charts.png(new Charts.Panel("state rows after each arrival", "arrival", "rows", arrivals.firstKey(),
              perStreamLine(arrivals, r -> r.records().stream().allMatch(b -> b.stateRows() == null) ? null
                  : (double) r.stateRows()), false, false)),
          Charts.png(new Charts.Panel("state memory after each arrival", "arrival", "KB", arrivals.firstKey(),
              perStreamLine(arrivals, r -> r.records().stream().allMatch(b -> b.stateBytes() == null) ? null
                  : r.stateMemoryBytes() / 1024.0), false, false))));
      List<byte[]> watermarks = new ArrayList<>();
      for (Feed feed : config.pipeline().feeds()) {
        List<String> streams = config.pipeline().streamsOf(feed).stream().filter(s -> s.kind() != StreamDef.Kind.RAW)
            .map(StreamDef::name).toList();
        byte[] chart = watermarks(arrivals, feed, streams);
        if (chart != null) {
          watermarks.add(chart);
        }
      }
      body.append(section("Watermarks against the newest event times", "Per feed, after each arrival's run: the "
          + "newest event (or change) time its streams have seen and each one's watermark, which trails it by the "
          + "watermark delay; a window, key or change at or behind the watermark is final, and later rows for it are "
          + "dropped.", watermarks.toArray(byte[][]::new)));
    }
    body.append(expectations);
    body.append(section("Data files per table, before and after maintenance", "Data files of each table now, and "
        + "before and after its last compaction (<code>tidemark maintain</code>; a table never compacted has no "
        + "such bars).", Charts.png(files(files))));
    body.append(filesTable(files));
    if (!restatements.isEmpty()) {
      body.append(restatementTable(restatements));
    }
    body.append(keysTable(keys));
    if (!arrivals.isEmpty()) {
      body.append("<h2>Per arrival, as the runs printed it</h2>\n<pre>");
      Map<String, String> feedOf = new LinkedHashMap<>();
      config.pipeline().streams().forEach(s -> feedOf.put(s.name(), s.feed().name()));
      arrivals.forEach((arrival, reports) -> {
        // arrival numbers are each feed's own: say which feeds this one is of
        body.append("arrival ").append(arrival).append(" (").append(esc(String.join(", ", reports.stream()
            .map(r -> feedOf.getOrDefault(r.stream(), r.stream())).distinct().toList()))).append("):\n");
        reports.forEach(r -> body.append("  ").append(esc(r.summary())).append('\n'));
      });
      body.append("</pre>\n");
    }
    return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>tidemark: pipeline report</title>
        <style>body{font-family:sans-serif;margin:2em;max-width:1250px}figure{display:inline-block;margin:0 1em 1em 0}
        figcaption{font-size:90%;color:#444}td,th{padding:3px 10px;text-align:right}th:first-child,td:first-child
        {text-align:left}table{border-collapse:collapse;margin:1em 0}tr:nth-child(even){background:#f3f3f3}
        .meta{color:#444}pre{background:#f6f6f6;padding:1em;overflow-x:auto}</style></head><body>
        """ + body + "</body></html>\n";
  }

  /** Per stream (in the order stream all runs them), its value for each arrival; null where it did not run. */
  private static Map<String, List<Double>> perStream(SortedMap<Integer, List<RunReport>> arrivals,
                                                     Function<RunReport, Double> value) {
    Map<String, List<Double>> out = new LinkedHashMap<>();
    List<Integer> keys = new ArrayList<>(arrivals.keySet());
    for (int i = 0; i < keys.size(); i++) {
      for (RunReport r : arrivals.get(keys.get(i))) {
        List<Double> values = out.computeIfAbsent(r.stream(), k -> new ArrayList<>(nulls(keys.size())));
        values.set(i, value.apply(r));
      }
    }
    out.values().removeIf(v -> v.stream().allMatch(Objects::isNull));
    return out;
  }

  /** The same over x = arrival (first to last, one apart): a gap where an arrival is missing. */
  private static Map<String, List<Double>> perStreamLine(SortedMap<Integer, List<RunReport>> arrivals,
                                                         Function<RunReport, Double> value) {
    int first = arrivals.firstKey();
    int n = arrivals.lastKey() - first + 1;
    Map<String, List<Double>> out = new LinkedHashMap<>();
    arrivals.forEach((arrival, reports) -> reports.forEach(r -> {
      Double v = value.apply(r);
      if (v != null) {
        out.computeIfAbsent(r.stream(), k -> new ArrayList<>(nulls(n))).set(arrival - first, v);
      }
    }));
    return out;
  }

  private static List<Double> nulls(int n) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(null);
    }
    return out;
  }

  /** Late rows dropped per stream and arrival; the restatements' corrections at the arrival they followed. */
  private static Charts.Bars late(SortedMap<Integer, List<RunReport>> arrivals, List<Restatement> restatements) {
    TreeSet<Integer> keys = new TreeSet<>(arrivals.keySet());
    restatements.forEach(r -> keys.add(r.afterArrival()));
    List<Integer> order = new ArrayList<>(keys);
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (int i = 0; i < order.size(); i++) {
      for (RunReport r : arrivals.getOrDefault(order.get(i), List.of())) {
        if (r.records().stream().anyMatch(b -> b.watermarkBefore() != null || b.watermarkAfter() != null)) {
          series.computeIfAbsent(r.stream() + ": late " + r.lateUnit() + "s dropped",
              k -> new ArrayList<>(zeros(order.size()))).set(i, (double) r.lateRowsDropped());
        }
      }
    }
    if (!restatements.isEmpty()) {
      List<Double> windows = zeros(order.size());
      List<Double> records = zeros(order.size());
      List<Double> changes = zeros(order.size());
      for (Restatement r : restatements) {
        int i = order.indexOf(r.afterArrival());
        windows.set(i, windows.get(i) + r.windows());
        records.set(i, records.get(i) + r.records());
        changes.set(i, changes.get(i) + r.changes());
      }
      series.put("restatement: windows recomputed", windows);
      series.put("restatement: record keys corrected", records);
      series.put("restatement: dimension changes applied", changes);
    }
    return new Charts.Bars("late rows dropped, and recovered", "arrival", "rows", order.stream()
        .map(String::valueOf).toList(), series);
  }

  private static List<Double> zeros(int n) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(0.0);
    }
    return out;
  }

  /**
   * For the streams of one feed, after each arrival: the newest event time any of them saw so far and each one's
   * watermark, in minutes (or hours, for a span of more than a day) after the earliest of them all; null when none
   * of them ran.
   */
  private static byte[] watermarks(SortedMap<Integer, List<RunReport>> arrivals, Feed feed, List<String> streams)
      throws IOException {
    Map<String, Map<Integer, Instant>> lines = new LinkedHashMap<>();
    Instant newest = null;
    for (Map.Entry<Integer, List<RunReport>> e : arrivals.entrySet()) {
      for (RunReport r : e.getValue()) {
        if (!streams.contains(r.stream())) {
          continue;
        }
        for (BatchRecord b : r.records()) {
          if (b.eventTimeMax() != null && (newest == null || b.eventTimeMax().isAfter(newest))) {
            newest = b.eventTimeMax();
          }
        }
        Instant after = r.records().stream().map(BatchRecord::watermarkAfter).filter(Objects::nonNull)
            .reduce((a, b) -> b).orElse(null);
        if (newest != null) {
          lines.computeIfAbsent("newest " + (feed instanceof DimensionFeed ? "change" : "event") + " time",
              k -> new TreeMap<>()).put(e.getKey(), newest);
        }
        if (after != null) {
          lines.computeIfAbsent("watermark: " + r.stream(), k -> new TreeMap<>()).put(e.getKey(), after);
        }
      }
    }
    if (lines.isEmpty()) {
      return null;
    }
    Instant t0 = lines.values().stream().flatMap(m -> m.values().stream()).min(Comparator.naturalOrder())
        .orElse(Instant.EPOCH);
    Instant t1 = lines.values().stream().flatMap(m -> m.values().stream()).max(Comparator.naturalOrder())
        .orElse(Instant.EPOCH);
    boolean hours = Duration.between(t0, t1).compareTo(Duration.ofDays(1)) > 0;
    double unit = hours ? 3_600_000.0 : 60_000.0;
    int first = arrivals.firstKey();
    int n = arrivals.lastKey() - first + 1;
    Map<String, List<Double>> series = new LinkedHashMap<>();
    lines.forEach((name, values) -> {
      List<Double> y = nulls(n);
      values.forEach((arrival, time) -> y.set(arrival - first, (time.toEpochMilli() - t0.toEpochMilli()) / unit));
      series.put(name, y);
    });
    String axis = (hours ? "hours" : "minutes") + " after " + t0.toString().replace("T", " ").replace("Z", " UTC");
    return Charts.png(new Charts.Panel(feed.name() + ": watermark and newest time", "arrival", axis, first, series, false,
        false));
  }

  private static Charts.Bars files(List<Files> files) {
    List<String> names = files.stream().map(f -> f.table().toString()).toList();
    Map<String, List<Double>> series = new LinkedHashMap<>();
    series.put("before the last compaction", files.stream().map(f -> toDouble(f.beforeCompaction())).toList());
    series.put("after it", files.stream().map(f -> toDouble(f.afterCompaction())).toList());
    series.put("now", files.stream().map(f -> (double) f.dataFiles()).toList());
    return new Charts.Bars("data files per table", "table", "data files", names, series);
  }

  private static Double toDouble(Long v) {
    return v == null ? null : v.doubleValue();
  }

  private static String filesTable(List<Files> files) {
    StringBuilder sb = new StringBuilder("<table><tr><th>table</th><th>data files</th><th>delete files</th>"
        + "<th>last compaction</th><th>data files before it</th><th>after it</th></tr>\n");
    for (Files f : files) {
      sb.append("<tr><td>").append(esc(f.table().toString())).append("</td><td>").append(f.dataFiles())
          .append("</td><td>").append(f.deleteFiles()).append("</td><td>")
          .append(f.compactedAt() == null ? "never" : f.compactedAt().toString()).append("</td><td>")
          .append(f.beforeCompaction() == null ? "" : f.beforeCompaction()).append("</td><td>")
          .append(f.afterCompaction() == null ? "" : f.afterCompaction()).append("</td></tr>\n");
    }
    return sb.append("</table>\n").toString();
  }

  private static String restatementTable(List<Restatement> restatements) {
    StringBuilder sb = new StringBuilder("<h2>Restatements</h2>\n<table><tr><th>run</th><th>corrected at</th>"
        + "<th>after arrival</th><th>windows recomputed</th><th>late rows counted</th><th>record keys corrected</th>"
        + "<th>dimension changes applied</th></tr>\n");
    for (Restatement r : restatements) {
      sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>"
          + "<td>%d</td></tr>%n", esc(r.runId()), r.at(), r.afterArrival(), r.windows(), r.rowsCounted(),
          r.records(), r.changes()));
    }
    return sb.append("</table>\n").toString();
  }

  /**
   * The keys the raw archives kept in their rescued data: each unknown key (with the arrival it first came in and how
   * often) and each declared field whose values did not convert, with what {@code tidemark evolve} would do.
   */
  static String keysTable(List<KeySurvey.Finding> keys) {
    StringBuilder sb = new StringBuilder("<h2>Keys beyond the feeds' columns</h2>\n");
    if (keys.isEmpty()) {
      return sb.append("<p>Every key of every archived line is a column of its feed: no rescued data.</p>\n")
          .toString();
    }
    sb.append("<p>Kept in the raw archives' <code>rescued_data</code>; promote one with <code>tidemark evolve"
        + "</code>.</p>\n<table><tr><th>feed</th><th>key</th><th>rows</th><th>first arrival</th><th>arrivals</th>"
        + "<th>what</th></tr>\n");
    for (KeySurvey.Finding f : keys) {
      sb.append("<tr><td>").append(esc(f.feed())).append("</td><td>").append(esc(f.key())).append("</td><td>")
          .append(f.rows()).append("</td><td>").append(f.firstArrival() == null ? "" : f.firstArrival())
          .append("</td><td>").append(f.arrivals()).append("</td><td>").append(esc(f.describe()))
          .append("</td></tr>\n");
    }
    return sb.append("</table>\n").toString();
  }

  /** A heading, a paragraph and its charts, each a PNG inside the page. */
  private static String section(String title, String text, byte[]... charts) {
    StringBuilder sb = new StringBuilder("<h2>").append(esc(title)).append("</h2>\n<p>").append(text)
        .append("</p>\n");
    for (byte[] png : charts) {
      sb.append("<figure class=\"chart\"><img alt=\"").append(esc(title)).append("\" src=\"data:image/png;base64,")
          .append(Base64.getEncoder().encodeToString(png)).append("\"></figure>\n");
    }
    return sb.toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
