package io.tidemark.cli;

import io.tidemark.CrashPoints;
import io.tidemark.config.Durations;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Ingest;
import io.tidemark.core.Measure;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Streams;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Runs every stream once for the demo and tells what changed: windows that finalized, records that came too late for
 * a finalized window, lines quarantined, the dimensions a run changed.
 */
final class StreamNarrator {
  private final SparkSession spark;
  private final TidemarkConfig config;
  private final Pipeline pipeline;
  private final PrintWriter out;
  private final CrashPoints crash;
  /** Each aggregate's watermark after the last run. */
  private final Map<String, Instant> watermarks = new HashMap<>();

  StreamNarrator(SparkSession spark, TidemarkConfig config, PrintWriter out, CrashPoints crash) {
    this.spark = spark;
    this.config = config;
    this.pipeline = config.pipeline();
    this.out = out;
    this.crash = crash;
  }

  void run(int arrival) {
    Set<String> windowsBefore = windows();
    Map<String, Instant> before = new HashMap<>(watermarks);
    long t0 = System.nanoTime();
    List<RunReport> reports = Streams.all(spark, config, true, crash);
    double seconds = (System.nanoTime() - t0) / 1e9;
    for (RunReport r : reports) {
      out.println("   " + r.summary());
    }
    out.println(String.format(java.util.Locale.ROOT, "   arrival %d: %d stream(s) ran at once in %.1f s; their %d "
        + "micro-batch(es) recorded in %s", arrival, reports.size(), seconds,
        reports.stream().mapToInt(r -> r.records().size()).sum(), pipeline.shared().streamBatches()));
    for (Aggregate a : pipeline.aggregates()) {
      RunReport r = report(reports, a.name());
      if (r != null && r.watermark() != null) {
        watermarks.put(a.name(), r.watermark());
      }
    }
    windows().stream().filter(w -> !windowsBefore.contains(w)).sorted()
        .forEach(w -> out.println("   window " + w));
    for (FactFeed f : pipeline.facts()) {
      for (Aggregate a : f.aggregates()) {
        if (before.containsKey(a.name())) {
          late(arrival, f, a, before.get(a.name()));
        }
      }
    }
    long rejected = reports.stream().mapToLong(r -> r.written(pipeline.shared().rejected())).sum();
    if (rejected > 0) {
      out.println("   " + rejected + " line(s) quarantined in " + pipeline.shared().rejected());
    }
    for (DimensionFeed d : pipeline.dimensions()) {
      RunReport r = report(reports, d.stream());
      if (r != null && r.written(d.table()) > 0) {
        dimension(d);
      }
    }
    out.flush();
  }

  private static RunReport report(List<RunReport> reports, String stream) {
    return reports.stream().filter(r -> r.stream().equals(stream)).findFirst().orElse(null);
  }

  /** "[2026-01-01 00:00,00:05) c1 finalized: n=3" for every window of every aggregate. */
  private Set<String> windows() {
    Set<String> out = new HashSet<>();
    boolean several = pipeline.aggregates().size() > 1;
    for (Aggregate a : pipeline.aggregates()) {
      Aggregation rule = a.rule();
      String start = rule.windowStart().name();
      List<String> select = new ArrayList<>();
      select.add("date_format(" + start + ", 'yyyy-MM-dd HH:mm')");
      select.add("date_format(" + start + " + INTERVAL " + rule.windows().size().toSeconds() + " SECONDS, 'HH:mm')");
      select.add("concat_ws('|', " + rule.groupBy().stream().map(c -> "CAST(" + c.name() + " AS STRING)")
          .collect(Collectors.joining(", ")) + ")");
      select.add("concat_ws(', ', " + rule.measures().stream().map(m -> "'" + m.name() + "=' || CAST(" + m.name()
          + " AS STRING)").collect(Collectors.joining(", ")) + ")");
      for (Row r : spark.sql("SELECT " + String.join(", ", select) + " FROM " + a.table().sql()).collectAsList()) {
        out.add("[" + r.getString(0) + "," + r.getString(1) + ") " + r.getString(2) + (several ? " " + a.name() : "")
            + " finalized: " + r.getString(3));
      }
    }
    return out;
  }

  /** Records of this arrival whose window of the aggregate had finalized before the run: the aggregate dropped them. */
  private void late(int arrival, FactFeed f, Aggregate a, Instant watermark) {
    Aggregation rule = a.rule();
    String window = Durations.spark(rule.windows().size());
    String ts = f.schema().eventTime().name();
    String key = "concat_ws('|', " + f.schema().key().stream().map(c -> "CAST(" + c.name() + " AS STRING)")
        .collect(Collectors.joining(", ")) + ")";
    String group = "concat_ws('|', " + rule.groupBy().stream().map(c -> "CAST(" + c.name() + " AS STRING)")
        .collect(Collectors.joining(", ")) + ")";
    boolean counts = rule.measures().stream().allMatch(m -> m.function() == Measure.Function.COUNT);
    String by = pipeline.aggregates().size() == 1 && counts ? "the counts" : a.name();
    for (Row r : spark.sql("SELECT " + key + ", " + group + ", date_format(" + ts + ", 'yyyy-MM-dd HH:mm:ss') FROM "
        + f.raw().table().sql() + " WHERE " + Ingest.ARRIVAL + " = " + arrival + " AND window(" + ts + ", '" + window
        + "').end <= TIMESTAMP '" + watermark + "' ORDER BY 1").collectAsList()) {
      out.println("   late event " + r.getString(0) + " (" + r.getString(1) + " at " + r.getString(2)
          + ") dropped by " + by + ": its window was final (watermark " + watermark + "); the raw archive keeps it");
    }
  }

  /** A dimension's versions, as its table holds them now. */
  private void dimension(DimensionFeed d) {
    DimensionSchema s = d.dimension();
    out.println("   " + d.name() + " dimension (SCD2) now:");
    String from = DimensionSchema.VALID_FROM.name();
    String to = DimensionSchema.VALID_TO.name();
    List<String> columns = new ArrayList<>(s.key().stream().map(Column::name).toList());
    s.attributes().forEach(c -> columns.add(c.name()));
    columns.add("date_format(" + from + ", 'MM-dd HH:mm') AS " + from);
    columns.add("date_format(" + to + ", 'MM-dd HH:mm') AS " + to);
    columns.add(DimensionSchema.IS_CURRENT.name());
    new ResultPrinter(ResultPrinter.Format.table, 100).print(spark.sql("SELECT " + String.join(", ", columns)
        + " FROM " + d.table().sql() + " ORDER BY " + s.feed().keyList() + ", " + from), out, out);
  }
}
