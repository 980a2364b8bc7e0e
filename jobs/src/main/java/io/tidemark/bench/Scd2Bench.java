package io.tidemark.bench;

import io.tidemark.config.Setting;
import io.tidemark.config.TableName;
import io.tidemark.core.DimensionSchema;
import io.tidemark.land.SeedScenarios;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.land.Arrival;
import io.tidemark.land.LandingFile;
import io.tidemark.land.LocalLanding;
import io.tidemark.stream.RunReport;
import io.tidemark.stream.Scd2Upsert;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/**
 * The SCD2 MERGE as the dimension grows: each arrival brings the new companies that take it to the next size
 * and a fixed number of changes to existing ones (some out of order). Per arrival and table layout
 * (copy-on-write, merge-on-read): the run's time, what the MERGE commit added and removed, and the time to
 * read the current versions afterwards.
 */
public final class Scd2Bench {
  private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};

  private final SparkSession spark;
  private final PrintWriter out;
  private final Path dir;

  public Scd2Bench(SparkSession spark, PrintWriter out, Path dir) {
    this.spark = spark;
    this.out = out;
    this.dir = dir;
    BenchTables.namespace(spark);
  }

  public void run(List<Integer> sizes, int changesPerArrival) throws Exception {
    out.println("== SCD2 MERGE per arrival: the dimension grows to " + sizes.get(sizes.size() - 1) + " companies, "
        + changesPerArrival + " changes to existing companies per arrival (10% out of order)");
    Map<String, String[]> modes = new LinkedHashMap<>();
    modes.put("copy-on-write", new String[] {"copy-on-write"});
    modes.put("merge-on-read", new String[] {"merge-on-read"});
    Map<String, TableName[]> tables = new LinkedHashMap<>();
    Map<String, String> checkpoints = new LinkedHashMap<>();
    for (Map.Entry<String, String[]> m : modes.entrySet()) {
      String suffix = m.getKey().replace('-', '_');
      TableName dim = SeedPipeline.BUILT_IN.freshDimension(spark, "scd2_" + suffix);
      TableName log = SeedPipeline.BUILT_IN.freshChangeLog(spark, "scd2_" + suffix + "_changes");
      String mode = m.getValue()[0];
      spark.sql("ALTER TABLE " + dim.sql() + " SET TBLPROPERTIES ('write.merge.mode'='" + mode + "', "
          + "'write.update.mode'='" + mode + "', 'write.delete.mode'='" + mode + "')");
      tables.put(m.getKey(), new TableName[] {dim, log});
      checkpoints.put(m.getKey(), dir.resolve("cp-scd2-" + UUID.randomUUID()).toString());
    }
    Path landing = dir.resolve("scd2-data-" + UUID.randomUUID());
    Path source = landing.resolve(SeedScenarios.COMPANIES);
    out.printf(Locale.ROOT, "%-14s %7s %9s %8s %10s %10s %9s %9s %9s %10s %9s%n", "layout", "arrival", "companies",
        "run s", "merged", "rows+", "rows-", "files+", "files-", "deletes+", "read s");
    SplittableRandom rng = new SplittableRandom(11);
    int companies = 0;
    Instant clock = Instant.parse("2026-01-01T00:00:00Z");
    for (int k = 0; k < sizes.size(); k++) {
      companies = writeArrival(landing, k + 1, companies, sizes.get(k), changesPerArrival, clock, rng);
      clock = clock.plus(Duration.ofHours(1));
      for (String mode : modes.keySet()) {
        TableName[] t = tables.get(mode);
        RunReport r = SeedPipeline.BUILT_IN.scd2(spark, source.toString(), t[0], t[1], checkpoints.get(mode));
        Snapshot s = Spark3Util.loadIcebergTable(spark, t[0].toString()).currentSnapshot();
        Map<String, String> sum = s.summary();
        long t0 = System.nanoTime();
        spark.sql("SELECT count(*) FROM " + t[0].sql() + " WHERE " + DimensionSchema.IS_CURRENT).collect();
        double read = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "%-14s %7d %9d %8.2f %10d %10s %9s %9s %9s %10s %9.2f%n", mode, k + 1, companies,
            r.seconds(), r.written(t[0]), sum.getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"),
            sum.getOrDefault(SnapshotSummary.DELETED_RECORDS_PROP, "0"),
            sum.getOrDefault(SnapshotSummary.ADDED_FILES_PROP, "0"),
            sum.getOrDefault(SnapshotSummary.DELETED_FILES_PROP, "0"),
            sum.getOrDefault(SnapshotSummary.ADDED_POS_DELETES_PROP, "0"), read);
        out.flush();
      }
    }
    out.println("merged = rows of the MERGE source (versions inserted, corrected or removed); rows+/rows-/files+/"
        + "files- = records and data files the commit added/removed; deletes+ = position deletes written (MoR); "
        + "read s = SELECT count(*) ... WHERE " + DimensionSchema.IS_CURRENT + " afterwards");
  }

  /** New companies up to {@code target}, each with a first version, and changes to existing ones. */
  private static int writeArrival(Path landing, int arrival, int from, int target, int changes, Instant clock,
                                  SplittableRandom rng) {
    StringBuilder sb = new StringBuilder();
    for (int c = from + 1; c <= target; c++) {
      sb.append(line(c, "Company " + c, TIERS[rng.nextInt(TIERS.length)], clock));
    }
    for (int i = 0; i < changes && from > 0; i++) {
      int c = rng.nextInt(from) + 1;
      Instant at = rng.nextInt(10) == 0 ? clock.minus(Duration.ofMinutes(30 + rng.nextInt(60)))
          : clock.plusSeconds(1 + i);
      sb.append(line(c, "Company " + c + (rng.nextBoolean() ? " Inc" : ""), TIERS[rng.nextInt(TIERS.length)], at));
    }
    LocalLanding.write(landing, "", List.of(new Arrival(arrival,
        List.of(LandingFile.of(SeedScenarios.COMPANIES, "changes.jsonl", sb.toString())))));
    return Math.max(from, target);
  }

  private static String line(int company, String name, String tier, Instant at) {
    return "{\"company_id\":\"c" + company + "\",\"name\":\"" + name + "\",\"tier\":\"" + tier + "\",\"change_ts\":\""
        + at + "\"}\n";
  }

}
