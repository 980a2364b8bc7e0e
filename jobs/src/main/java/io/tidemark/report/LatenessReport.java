package io.tidemark.report;

import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.core.Ingest;
import io.tidemark.lakehouse.spark.SparkWindows;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * How late the records were, per arrival, for a windowed aggregate: an event is late when its window had ended
 * more than the watermark delay before the latest event time of the earlier arrivals. How late it was is how
 * big a delay would have caught it. The report shows the delays that would have caught 50/90/99% of the late
 * events and, as a chart, the share of events counted on time for each delay: completeness bought with latency.
 */
public final class LatenessReport {
  /** One arrival: its records, the late ones, and how late (the delay that would have caught them). */
  public record ArrivalLateness(int arrival, long records, long late, Duration median, Duration p90, Duration max) {}

  /** {@code aggregate}: the windowed aggregate the lateness is against. */
  public record Report(String aggregate, List<ArrivalLateness> arrivals, long records, long late, Duration delay,
                       Duration catch50,
                       Duration catch90, Duration catch99, List<Double> onTimeByDelayMinute) {}

  private LatenessReport() {}

  /**
   * The lateness of a fact feed's records against a windowed aggregate's windows: per arrival, how many came too late
   * for the aggregate's watermark delay, and which delays would have caught them.
   */
  public static Report compute(SparkSession spark, FactFeed feed, Aggregate aggregate) {
    return compute(spark, aggregate.name(), feed.raw().table(), feed.schema().eventTime().name(),
        aggregate.watermark(), aggregate.rule().windows().size());
  }

  private static Report compute(SparkSession spark, String aggregate, TableName raw, String ts, Duration delay,
                                Duration window) {
    long w = window.toSeconds();
    long d = delay.toSeconds();
    // need = how many seconds the delay must exceed for the event to count: earlier arrivals' latest event time
    // minus the end of the event's window; null in the first arrival, where nothing is late
    String arrival = Ingest.ARRIVAL.name();
    spark.sql("SELECT " + arrival + ", (unix_timestamp(m_prev) - (unix_timestamp(" + SparkWindows.startSql(ts, window)
        + ") + " + w + ")) AS need FROM " + raw.sql() + " JOIN (SELECT " + arrival + ", max(mx) OVER (ORDER BY "
        + arrival + " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS m_prev FROM (SELECT " + arrival
        + ", max(" + ts + ") AS mx FROM " + raw.sql() + " WHERE " + arrival + " IS NOT NULL GROUP BY " + arrival
        + ")) USING (" + arrival + ")").createOrReplaceTempView("tidemark_need");
    List<ArrivalLateness> arrivals = new ArrayList<>();
    for (Row r : spark.sql("SELECT " + arrival + ", count(*), count_if(need >= " + d + "), "
        + "percentile(need, 0.5) FILTER (WHERE need >= " + d + "), percentile(need, 0.9) FILTER (WHERE need >= " + d
        + "), max(need) FILTER (WHERE need >= " + d + ") FROM tidemark_need GROUP BY " + arrival + " ORDER BY "
        + arrival).collectAsList()) {
      arrivals.add(new ArrivalLateness(r.getInt(0), r.getLong(1), r.getLong(2), catching(r, 3), catching(r, 4),
          catching(r, 5)));
    }
    Row all = spark.sql("SELECT count(*), count_if(need >= " + d + "), percentile(need, 0.5) FILTER (WHERE need >= "
        + d + "), percentile(need, 0.9) FILTER (WHERE need >= " + d + "), percentile(need, 0.99) FILTER "
        + "(WHERE need >= " + d + "), max(need) FROM tidemark_need").first();
    long maxNeed = all.isNullAt(5) ? 0 : Math.max(0, (long) number(all, 5));
    int minutes = (int) Math.min(240, maxNeed / 60 + 2);
    List<Double> onTime = new ArrayList<>();
    StringBuilder cases = new StringBuilder();
    for (int m = 0; m <= minutes; m++) {
      cases.append(m == 0 ? "" : ", ").append("count_if(need IS NULL OR need < ").append(m * 60L).append(")");
    }
    Row curve = spark.sql("SELECT " + cases + " FROM tidemark_need").first();
    long total = all.getLong(0);
    for (int m = 0; m <= minutes; m++) {
      onTime.add(total == 0 ? 100.0 : 100.0 * curve.getLong(m) / total);
    }
    return new Report(aggregate, arrivals, total, all.getLong(1), delay, catching(all, 2), catching(all, 3), catching(all, 4),
        onTime);
  }

  private static double number(Row r, int i) {
    Object v = r.get(i);
    return v instanceof Number n ? n.doubleValue() : Double.parseDouble(v.toString());
  }

  /** The delay that catches an event that needed more than {@code need} seconds: need plus a second. */
  private static Duration catching(Row r, int i) {
    return r.isNullAt(i) ? Duration.ZERO : Duration.ofSeconds((long) Math.floor(number(r, i)) + 1);
  }

  public static void print(Report r, PrintWriter out) {
    out.printf(Locale.ROOT, "lateness for %s (watermark delay %s): %d of %d records late%n", r.aggregate(),
        Durations.show(r.delay()), r.late(), r.records());
    out.printf(Locale.ROOT, "  %8s %8s %6s %14s %14s %14s%n", "arrival", "records", "late", "late by (p50)",
        "(p90)", "(max)");
    for (ArrivalLateness a : r.arrivals()) {
      out.printf(Locale.ROOT, "  %8d %8d %6d %14s %14s %14s%n", a.arrival(), a.records(), a.late(), show(a.median()),
          show(a.p90()), show(a.max()));
    }
    if (r.late() > 0) {
      out.printf(Locale.ROOT, "  a watermark delay of %s would have caught 50%% of the late records, %s 90%%, %s 99%%"
          + " (each window then finalizes that much later)%n", show(r.catch50()), show(r.catch90()), show(r.catch99()));
    }
  }

  /** Writes {@code lateness.html} with its chart {@code lateness.png} into {@code dir}; the page's path. */
  public static Path write(Report r, Path dir) throws IOException {
    Files.createDirectories(dir);
    Charts.write(dir.resolve("lateness.png"), "completeness vs latency", List.of(Charts.Panel.shareSteps(
        "records counted on time, by watermark delay", "watermark delay (minutes)", "records on time (%)", 0,
        Map.of("records on time", r.onTimeByDelayMinute()))));
    StringBuilder rows = new StringBuilder();
    for (ArrivalLateness a : r.arrivals()) {
      rows.append(String.format(Locale.ROOT, "<tr><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td>"
          + "</tr>%n", a.arrival(), a.records(), a.late(), show(a.median()), show(a.p90()), show(a.max())));
    }
    String html = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>tidemark: lateness</title>
        <style>body{font-family:sans-serif;margin:2em}td,th{padding:4px 12px;text-align:right}
        table{border-collapse:collapse}tr:nth-child(even){background:#f3f3f3}</style></head><body>
        <h1>How late the records were for %s</h1>
        <p>With a watermark delay of %s: <b>%d</b> of %d records came after their window had finalized.
        The raw archive kept them; the restatement put them back into the windows.</p>
        <table><tr><th>arrival</th><th>records</th><th>late</th><th>late by (p50)</th><th>(p90)</th><th>(max)</th></tr>
        %s</table>
        <p>A delay of <b>%s</b> would have caught 50%% of the late records, <b>%s</b> 90%%, <b>%s</b> 99%% &mdash;
        and every window would then be final that much later. A bigger delay also keeps more state.</p>
        <img src="lateness.png" alt="share of records on time per watermark delay">
        </body></html>
        """.formatted(r.aggregate(), Durations.show(r.delay()), r.late(), r.records(), rows, show(r.catch50()), show(r.catch90()),
        show(r.catch99()));
    Path page = dir.resolve("lateness.html");
    Files.writeString(page, html, StandardCharsets.UTF_8);
    return page;
  }

  private static String show(Duration d) {
    if (d.isZero()) {
      return "-";
    }
    long s = d.toSeconds();
    return s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
  }
}
