package io.tidemark.cli;

import io.tidemark.core.WindowCounts;
import io.tidemark.core.Ingest;
import io.tidemark.core.Events;
import io.tidemark.core.Dimension;
import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.Streams;
import io.tidemark.stream.WindowedCounts;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs the event streams once for the demo and tells what changed: windows that finalized, events that came
 * too late for a finalized window, duplicates dropped, lines quarantined.
 */
final class StreamNarrator {
  private final SparkSession spark;
  private final TidemarkConfig config;
  private final PrintWriter out;
  private final CrashPoints crash;
  private Instant countsWatermark;

  StreamNarrator(SparkSession spark, TidemarkConfig config, PrintWriter out, CrashPoints crash) {
    this.spark = spark;
    this.config = config;
    this.out = out;
    this.crash = crash;
  }

  void run(int arrival) {
    Set<String> windowsBefore = windows();
    Instant watermarkBefore = countsWatermark;
    long t0 = System.nanoTime();
    List<RunReport> reports = Streams.all(spark, config, true, crash);
    double seconds = (System.nanoTime() - t0) / 1e9;
    for (RunReport r : reports) {
      out.println("   " + r.summary());
    }
    out.println(String.format(java.util.Locale.ROOT, "   arrival %d: %d stream(s) ran at once in %.1f s; their %d "
        + "micro-batch(es) recorded in %s", arrival, reports.size(), seconds,
        reports.stream().mapToInt(r -> r.records().size()).sum(), config.tables().streamBatches()));
    RunReport counts = report(reports, WindowedCounts.NAME);
    if (counts != null && counts.watermark() != null) {
      countsWatermark = counts.watermark();
    }
    windows().stream().filter(w -> !windowsBefore.contains(w)).sorted()
        .forEach(w -> out.println("   window " + w));
    if (watermarkBefore != null) {
      lateForCounts(arrival, watermarkBefore);
    }
    long rejected = reports.stream().mapToLong(r -> r.written(config.tables().rejected())).sum();
    if (rejected > 0) {
      out.println("   " + rejected + " line(s) quarantined in " + config.tables().rejected());
    }
    RunReport scd2 = report(reports, Scd2Upsert.NAME);
    if (scd2 != null && scd2.written(config.tables().companies()) > 0) {
      out.println("   company dimension (SCD2) now:");
      String from = Dimension.VALID_FROM.name();
      String to = Dimension.VALID_TO.name();
      new ResultPrinter(ResultPrinter.Format.table, 100).print(spark.sql("SELECT " + Dimension.COMPANY_ID + ", "
          + Dimension.NAME + ", " + Dimension.TIER + ", date_format(" + from + ", 'MM-dd HH:mm') AS " + from
          + ", date_format(" + to + ", 'MM-dd HH:mm') AS " + to + ", " + Dimension.IS_CURRENT + " FROM "
          + config.tables().companies().sql() + " ORDER BY " + Dimension.COMPANY_ID + ", " + from), out, out);
    }
    out.flush();
  }

  private static RunReport report(List<RunReport> reports, String stream) {
    return reports.stream().filter(r -> r.stream().equals(stream)).findFirst().orElse(null);
  }

  /** "[00:00,00:05) c1 finalized: n=3" for every window in the counts table. */
  private Set<String> windows() {
    Set<String> out = new HashSet<>();
    String start = WindowCounts.W_START.name();
    for (Row r : spark.sql("SELECT " + WindowCounts.COMPANY_ID + ", date_format(" + start + ", 'yyyy-MM-dd HH:mm'), "
        + "date_format(" + start + " + INTERVAL " + config.countsWindow().toSeconds() + " SECONDS, 'HH:mm'), "
        + WindowCounts.N + " FROM " + config.tables().eventCounts().sql()).collectAsList()) {
      out.add("[" + r.getString(1) + "," + r.getString(2) + ") " + r.getString(0) + " finalized: n=" + r.getLong(3));
    }
    return out;
  }

  /** Events of this arrival whose window had finalized before the run: the counts dropped them. */
  private void lateForCounts(int arrival, Instant watermark) {
    String window = Durations.spark(config.countsWindow());
    String ts = Events.EVENT_TS.name();
    List<Row> late = spark.sql("SELECT " + Events.EVENT_ID + ", " + Events.COMPANY_ID + ", date_format(" + ts
        + ", 'yyyy-MM-dd HH:mm:ss') FROM " + config.tables().rawEvents().sql() + " WHERE " + Ingest.ARRIVAL + " = "
        + arrival + " AND window(" + ts + ", '" + window + "').end <= TIMESTAMP '" + watermark + "' ORDER BY "
        + Events.EVENT_ID).collectAsList();
    for (Row r : late) {
      out.println("   late event " + r.get(0) + " (" + r.getString(1) + " at " + r.getString(2)
          + ") dropped by the counts: its window was final (watermark " + watermark + "); the raw archive keeps it");
    }
  }
}
