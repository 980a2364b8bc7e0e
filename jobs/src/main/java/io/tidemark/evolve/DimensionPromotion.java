package io.tidemark.evolve;

import io.tidemark.CrashPoints;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Column;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.DimensionSchema;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.stream.SparkScd2Difference;
import io.tidemark.stream.SparkScd2History;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code tidemark evolve promote <dimension> KEY}: a key a dimension feed's changes carried beyond their columns
 * becomes a tracked attribute of the SCD2 dimension, on a branch of its own cut from the staging branch. The column is added to
 * the raw archive, the change log and the dimension; the archive is backfilled from its rescued data (as for the
 * fact feeds), each logged change gets the value of the archived rows it came from, and the dimension's history is
 * rebuilt from the log with the new attribute (a change of it now makes a version; the core's rules, Spark's plan of
 * them), only the difference written. DuckDB audits the three tables; one merge into the staging branch.
 *
 * <p>The change log gets the column because the history is rebuilt from it, by the stream and by the checks: a
 * promoted value the log did not hold would be lost at the next rebuild of the key.
 */
final class DimensionPromotion {
  private final Lakehouse lh;
  private final CrashPoints crash;

  DimensionPromotion(Lakehouse lh, CrashPoints crash) {
    this.lh = lh;
    this.crash = crash;
  }

  /** {@code declared}: the dimension as the staging branch's archive declares it, before this promotion. */
  Promotion.Result onBranch(DimensionFeed d, String key, Type as, boolean widen, DimensionSchema declared) {
    SparkSession spark = lh.spark();
    TidemarkConfig config = lh.config();
    String staging = config.stagingBranch();
    String feed = d.name();
    String branch = "evolve-" + feed + "-" + key;
    DimensionSchema after = declared.with(Column.of(key, as));
    try (NessieRefs refs = new NessieRefs(lh.endpoints())) {
      if (refs.exists(branch)) {
        // left by a run that was killed before its merge: nothing else writes it, start again from the staging head
        refs.deleteBranch(branch);
      }
      refs.createBranch(branch, refs.branch(staging));
      Promotion.registerFunctions(spark);
      TableName raw = d.raw().table();
      TableName log = d.changes();
      TableName dimension = d.table();
      Table rawTable = IcebergTables.load(spark, raw.sqlAt(branch));
      Table logTable = IcebergTables.load(spark, log.sqlAt(branch));
      Table dimensionTable = IcebergTables.load(spark, dimension.sqlAt(branch));
      long rawSnapshot = rawTable.currentSnapshot().snapshotId();
      Long logSnapshot = snapshot(logTable);
      Long dimensionSnapshot = snapshot(dimensionTable);
      Promotion.addColumn(rawTable, key, as);
      Promotion.addColumn(logTable, key, as);
      // in the dimension among the attributes, where DimensionSchema.version lists it
      Promotion.addColumn(dimensionTable, key, as, DimensionSchema.VALID_FROM.name());
      String what = (widen ? "widen " : "promote ") + feed + "." + key + (widen ? " to " : " as ") + as.sql();
      crash.at("evolve:after-add");
      Map<String, String> props = Map.of(CommitKeys.STREAM, CommitKeys.EVOLVE_STREAM);
      Promotion.withProperties(props, () -> spark.sql(Promotion.backfillRaw(raw.sqlAt(branch), key, as)));
      crash.at("evolve:after-raw");
      Promotion.withProperties(props, () -> spark.sql(backfillLog(log.sqlAt(branch), raw.sqlAt(branch), key,
          declared)));
      crash.at("evolve:after-log");
      long written = rebuild(spark, log.sqlAt(branch), dimension.sqlAt(branch), after, props);
      crash.at("evolve:after-dimension");
      for (Table table : List.of(rawTable, logTable, dimensionTable)) {
        table.refresh();
      }
      BackfillAudit.DimensionOutcome audit = new BackfillAudit(lh.storage(), Promotion.workDir(config, branch))
          .auditDimension(rawTable, rawSnapshot, logTable, logSnapshot, dimensionTable, dimensionSnapshot, key, as,
              declared, after);
      List<AuditCheck> failed = audit.checks().stream().filter(c -> !c.passed()).toList();
      if (!failed.isEmpty()) {
        throw new EvolveException("evolve promote refused: audit " + failed.get(0) + "; branch " + branch
            + " kept for inspection, the staging branch unchanged");
      }
      String backfilled = audit.rawRows() + " archived row(s) and " + audit.logRows() + " logged change(s) "
          + "backfilled, the dimension rebuilt (" + audit.versionsBefore() + " -> " + audit.versionsAfter()
          + " version(s), " + written + " written)";
      String message = "evolve: " + what + " (" + backfilled + ")";
      String merged = refs.merge(refs.branch(branch), staging, message, Promotion.AUTHOR,
          Map.of(CommitKeys.STREAM, CommitKeys.EVOLVE_STREAM)).orElseThrow(() -> new EvolveException(
              "evolve promote: the staging branch changed " + raw + ", " + log + " or " + dimension
                  + " meanwhile (a stream ran?); run it again between stream runs"));
      crash.at("evolve:after-merge");
      refs.deleteBranch(branch);
      return new Promotion.Result(feed, key, as, widen, audit.rawRows(), backfilled, audit.checks(), merged);
    }
  }

  /**
   * Each logged change gets the value of the archived rows it came from: the same key, attributes and time, not a
   * delete (a delete carries no attributes). Several such rows with different values: the greatest, the one the
   * history keeps of two changes at one instant, so a rerun picks the same.
   */
  static String backfillLog(String log, String raw, String key, DimensionSchema declared) {
    String marker = declared.delete() == null ? null : declared.delete().column().name();
    List<String> cols = declared.logged().names().stream().filter(c -> !c.equals(key) && !c.equals(marker))
        .toList();
    StringBuilder on = new StringBuilder();
    for (String c : cols) {
      on.append("l.").append(c).append(" <=> r.").append(c).append(" AND ");
    }
    String notDeleteRaw = declared.delete() == null ? "true" : "NOT " + declared.delete().isDeleteSql("");
    String notDeleteLog = declared.delete() == null ? "true" : "NOT " + declared.delete().isDeleteSql("l.");
    return "MERGE INTO " + log + " l USING (SELECT " + String.join(", ", cols) + ", max(`" + key + "`) AS v FROM "
        + raw + " WHERE `" + key + "` IS NOT NULL AND " + notDeleteRaw + " GROUP BY " + String.join(", ", cols)
        + ") r ON " + on + notDeleteLog + " WHEN MATCHED AND l.`" + key + "` IS NULL THEN UPDATE SET l.`" + key
        + "` = r.v";
  }

  /**
   * The dimension made equal to the history rebuilt from the whole log with the new attribute: versions where only
   * it changed appear, their neighbours' validity corrected. Returns the versions written or removed.
   */
  private static long rebuild(SparkSession spark, String log, String dimension, DimensionSchema after,
                              Map<String, String> props) {
    Dataset<Row> history = SparkScd2History.rebuild(spark.table(log), after);
    Dataset<Row> current = spark.table(dimension).select(SparkRows.columns(after.version()));
    Dataset<Row> diff = SparkScd2Difference.of(history, current, after).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long n = diff.count();
      if (n > 0) {
        Promotion.withProperties(props, () -> SparkScd2Difference.merge(diff, dimension, after));
      }
      return n;
    } finally {
      diff.unpersist();
    }
  }

  private static Long snapshot(Table table) {
    return table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
  }
}
