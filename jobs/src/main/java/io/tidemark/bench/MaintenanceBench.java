package io.tidemark.bench;

import io.tidemark.config.TableName;
import io.tidemark.core.Column;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.maintain.Compaction;
import io.tidemark.maintain.GarbageCollector;
import io.tidemark.maintain.Maintenance;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.SnapshotSummary;
import org.apache.spark.sql.SparkSession;

/**
 * What maintenance buys: many small arrivals (one small append commit each, as a micro-batch makes) into copies of
 * facts.events and facts.event_counts in the bench namespace; files per table and the time of typical queries
 * before and after compaction; the bench namespace's storage before and after garbage collection.
 */
public final class MaintenanceBench {
  private final Lakehouse lakehouse;
  private final SparkSession spark;
  private final PrintWriter out;

  public MaintenanceBench(Lakehouse lakehouse, PrintWriter out) {
    this.lakehouse = lakehouse;
    this.spark = lakehouse.spark();
    this.out = out;
  }

  public void run(int arrivals, int eventsPerArrival, int repeat) throws Exception {
    BenchTables.namespace(spark);
    SeedPipeline seed = SeedPipeline.BUILT_IN;
    TableName events = seed.freshEvents(spark, "maint_events");
    TableName counts = seed.freshCounts(spark, "maint_event_counts");
    // the seed's columns, in their order: the events' id, company, amount, time; the counts' company, start, n
    List<Column> e = seed.events().schema().columns().columns();
    List<Column> n = seed.counts().rule().schema().columns();
    long t0 = System.nanoTime();
    for (int a = 0; a < arrivals; a++) {
      long first = (long) a * eventsPerArrival;
      // an arrival's events spread over three days (partitions), as late and on-time data mix
      spark.sql("SELECT CAST(id AS INT) AS " + e.get(0) + ", concat('c', CAST(id % 50 AS STRING)) AS "
          + e.get(1) + ", CAST(id % 1000 AS DOUBLE) / 10 AS " + e.get(2) + ", "
          + "timestampadd(SECOND, CAST(id * 37 % 259200 AS INT), TIMESTAMP '2026-01-01 00:00:00') AS "
          + e.get(3) + " FROM range(" + first + ", " + (first + eventsPerArrival) + ", 1, 1)")
          .writeTo(events.sql()).append();
      spark.sql("SELECT concat('c', CAST(id % 50 AS STRING)) AS " + n.get(0) + ", "
          + "timestampadd(MINUTE, CAST(id * 5 % 4320 AS INT), TIMESTAMP '2026-01-01 00:00:00') AS "
          + n.get(1) + ", id % 7 + 1 AS " + n.get(2) + " FROM range(" + a * 10L + ", "
          + (a * 10L + 10) + ", 1, 1)").writeTo(counts.sql()).append();
    }
    out.printf(Locale.ROOT, "%d arrivals of %d events and 10 counts each written in %.1f s%n", arrivals,
        eventsPerArrival, (System.nanoTime() - t0) / 1e9);
    String countsQuery = "SELECT " + n.get(0) + ", sum(" + n.get(2) + ") FROM " + counts.sql()
        + " GROUP BY 1";
    String scanQuery = "SELECT * FROM " + events.sql();

    Measure before = measure(events, counts, countsQuery, scanQuery, repeat);
    Maintenance m = new Maintenance(lakehouse, line -> { });
    long c0 = System.nanoTime();
    m.compact(List.of(events, counts), Compaction.Options.defaults());
    double compactSeconds = (System.nanoTime() - c0) / 1e9;
    Measure after = measure(events, counts, countsQuery, scanQuery, repeat);

    out.printf(Locale.ROOT, "%-44s %12s %12s%n", "", "before", "after compaction");
    out.printf(Locale.ROOT, "%-44s %12d %12d%n", "data files of " + events, before.eventFiles, after.eventFiles);
    out.printf(Locale.ROOT, "%-44s %12d %12d%n", "data files of " + counts, before.countFiles, after.countFiles);
    out.printf(Locale.ROOT, "%-44s %11.2fs %11.2fs%n", "sum(n) by company over " + counts.table(),
        before.countsSeconds, after.countsSeconds);
    out.printf(Locale.ROOT, "%-44s %11.2fs %11.2fs%n", "full scan of " + events.table() + " (" + before.rows
        + " rows)", before.scanSeconds, after.scanSeconds);
    out.printf(Locale.ROOT, "compaction of both tables took %.1f s; rows before %d, after %d%n", compactSeconds,
        before.rows, after.rows);

    // GC of the bench namespace only, keeping nothing but the heads: what compaction made unreachable goes
    long g0 = System.nanoTime();
    GarbageCollector.Result gc = m.gc(new GarbageCollector.Options(Duration.ZERO, Duration.ZERO,
        BenchTables.NS + "/", false));
    out.printf(Locale.ROOT, "storage of the %s namespace: %d objects, %.2f MiB before GC; %d objects, %.2f MiB "
            + "after (%d deleted, %.1f s; mark: %d references, %d commits, %d live files)%n", BenchTables.NS,
        gc.objects(), gc.bytes() / 1048576.0, gc.objects() - gc.deleted(), (gc.bytes() - gc.deletedBytes()) / 1048576.0,
        gc.deleted(), (System.nanoTime() - g0) / 1e9, gc.references(), gc.commits(), gc.liveFiles());
    long rowsAfterGc = spark.sql("SELECT count(*) FROM " + events.sql()).first().getLong(0);
    out.printf(Locale.ROOT, "rows of %s after GC: %d%n", events, rowsAfterGc);
  }

  private record Measure(int eventFiles, int countFiles, double countsSeconds, double scanSeconds, long rows) {}

  private Measure measure(TableName events, TableName counts, String countsQuery, String scanQuery, int repeat) {
    int eventFiles = Integer.parseInt(IcebergTables.load(spark, events).currentSnapshot().summary()
        .get(SnapshotSummary.TOTAL_DATA_FILES_PROP));
    int countFiles = Integer.parseInt(IcebergTables.load(spark, counts).currentSnapshot().summary()
        .get(SnapshotSummary.TOTAL_DATA_FILES_PROP));
    double countsBest = Double.MAX_VALUE;
    double scanBest = Double.MAX_VALUE;
    long rows = 0;
    for (int i = 0; i < repeat; i++) {
      long t = System.nanoTime();
      spark.sql(countsQuery).collectAsList();
      countsBest = Math.min(countsBest, (System.nanoTime() - t) / 1e9);
      t = System.nanoTime();
      rows = spark.sql(scanQuery).collectAsList().size();
      scanBest = Math.min(scanBest, (System.nanoTime() - t) / 1e9);
    }
    return new Measure(eventFiles, countFiles, countsBest, scanBest, rows);
  }
}
