package io.tidemark.evolve;

import io.tidemark.CrashPoints;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.KeySurvey;
import io.tidemark.core.Rescued;
import io.tidemark.core.Type;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.report.RescuedKeys;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code tidemark evolve promote}: a key a fact feed's lines carried beyond its columns becomes a column of the raw
 * archive and of the deduplicated table (a dimension's: {@link DimensionPromotion}), on a branch of its own cut from the staging branch: the column added (Iceberg adds
 * it in place, no file rewritten), backfilled from the rescued data of the rows already archived (Spark's JSON
 * conversion, the one the streams use, so a value that does not convert stays in the rescued data), audited in DuckDB
 * against the archive as it was, and merged into the staging branch in one commit; the next publish takes every
 * table to main at once. The raw archive's columns in the catalog are then the feed's declaration ({@link
 * FeedDeclarations}): the streams read them when a run starts, so the next arrival fills the column without a new
 * checkpoint.
 *
 * <p>Safe to kill and to rerun: everything happens on the branch until the one merge; a rerun finds the column on the
 * staging branch and does nothing, or starts the branch again from the staging branch's head.
 */
public final class Promotion {
  static final String AUTHOR = "tidemark evolve";
  private static final String VALUE = "tidemark_rescued_value";
  private static final String WITHOUT = "tidemark_rescued_without";

  /**
   * What a promotion did ({@code rawRows}: archived rows backfilled; {@code backfilled}: all it wrote, in words):
   * nothing when the key was promoted before ({@code merged} null).
   */
  public record Result(String feed, String key, Type type, boolean widened, long rawRows, String backfilled,
                       List<AuditCheck> checks, String merged) {
    public String summary() {
      return merged == null ? feed + "." + key + " is a column already, of a type that holds what it carried: "
          + "nothing to do"
          : (widened ? "widened " + feed + "." + key + " to " : "promoted " + feed + "." + key + " as ") + type.sql()
              + ": " + backfilled + ", " + checks.size() + " audit check(s) passed, merged into the staging branch ("
              + merged.substring(0, Math.min(8, merged.length())) + "); the next publish takes it to main";
    }
  }

  private final Lakehouse lh;
  private final CrashPoints crash;

  public Promotion(Lakehouse lh, CrashPoints crash) {
    this.lh = lh;
    this.crash = crash;
  }

  /** The keys the raw archives kept on the staging branch, feed by feed in the pipeline's order. */
  public List<KeySurvey.Finding> list() {
    String staging = lh.config().stagingBranch();
    List<KeySurvey.Finding> out = new java.util.ArrayList<>();
    for (Feed f : lh.config().pipeline().feeds()) {
      out.addAll(RescuedKeys.of(lh.spark(), f.raw().table().sqlAt(staging), f.schema()));
    }
    return out;
  }

  /** Promotes {@code key} of {@code feed} with {@code type} (null: the suggested one). */
  public Result promote(Feed feed, String key, Type type) {
    SparkSession spark = lh.spark();
    TidemarkConfig config = lh.config();
    String staging = config.stagingBranch();
    TableName archive = feed.raw().table();
    FeedSchema declared = FeedDeclarations.read(spark, archive.sqlAt(staging), feed.schema());
    if (feed.schema().declares(key)) {
      throw new EvolveException("evolve promote: " + key + " is declared by " + feed.name() + " as "
          + feed.schema().columns().column(key).type().sql() + " in the pipeline file; Iceberg cannot widen it in "
          + "place to hold what did not convert, which stays in the rescued data");
    }
    KeySurvey.Finding finding = RescuedKeys.of(spark, archive.sqlAt(staging), feed.schema()).stream()
        .filter(f -> f.key().equals(key)).findFirst().orElse(null);
    if (declared.declares(key)) {
      Type now = declared.columns().column(key).type();
      // a promoted column whose later values outgrow its type: widened in place when Iceberg can, else nothing
      Type wider = finding == null ? null : type != null ? type : finding.suggested();
      if (wider == null || wider.equals(now) || !KeySurvey.widens(now, wider)) {
        return new Result(feed.name(), key, now, false, 0, "", List.of(), null);
      }
      return onBranch(feed, key, wider, true, declared);
    }
    if (finding == null) {
      throw new EvolveException("evolve promote: no row of " + archive + " on " + staging + " carries " + key
          + "; see tidemark evolve list");
    }
    if (!finding.promotable() && type == null) {
      throw new EvolveException("evolve promote: " + finding.describe());
    }
    if (!key.matches("[A-Za-z_][A-Za-z0-9_]{0,127}")) {
      throw new EvolveException("evolve promote: '" + key + "' is not a column name; it stays in the rescued data");
    }
    return onBranch(feed, key, type == null ? finding.suggested() : type, false, declared);
  }

  /**
   * A column the pipeline file now declares of a feed whose tables were made before it: added to them, the archived
   * rows that carried it in their rescued data backfilled, audited and merged into the staging branch, as a
   * promotion does ({@code tidemark bootstrap} runs this for every optional column a file adds). Nothing to do when
   * the archive has the column already.
   */
  public Result declare(Feed feed, io.tidemark.core.Column column) {
    String staging = lh.config().stagingBranch();
    Table archive = IcebergTables.load(lh.spark(), feed.raw().table().sqlAt(staging));
    if (archive.schema().findField(column.name()) != null) {
      return new Result(feed.name(), column.name(), column.type(), false, 0, "", List.of(), null);
    }
    if (feed instanceof FactFeed f) {
      return onBranch(f, column.name(), column.type(), false);
    }
    DimensionFeed d = (DimensionFeed) feed;
    return new DimensionPromotion(lh, crash).onBranch(d, column.name(), column.type(), false,
        FeedDeclarations.of(archive, d.dimension().without(column)));
  }

  private Result onBranch(Feed feed, String key, Type as, boolean widen, FeedSchema declared) {
    return feed instanceof FactFeed f ? onBranch(f, key, as, widen)
        : new DimensionPromotion(lh, crash).onBranch((DimensionFeed) feed, key, as, widen,
            FeedDeclarations.read(lh.spark(), feed.raw().table().sqlAt(lh.config().stagingBranch()),
                ((DimensionFeed) feed).dimension()));
  }

  /** The column added (or widened) on a branch of its own, backfilled, audited and merged into the staging branch. */
  private Result onBranch(FactFeed feed, String key, Type as, boolean widen) {
    SparkSession spark = lh.spark();
    TidemarkConfig config = lh.config();
    String staging = config.stagingBranch();
    String branch = "evolve-" + feed.name() + "-" + key;
    try (NessieRefs refs = new NessieRefs(lh.endpoints())) {
      if (refs.exists(branch)) {
        // left by a run that was killed before its merge: nothing else writes it, start again from the staging head
        refs.deleteBranch(branch);
      }
      refs.createBranch(branch, refs.branch(staging));
      registerFunctions(spark);
      TableName raw = feed.raw().table();
      TableName records = feed.dedupTable();
      Table rawBefore = IcebergTables.load(spark, raw.sqlAt(branch));
      Table recordsBefore = IcebergTables.load(spark, records.sqlAt(branch));
      long rawSnapshot = rawBefore.currentSnapshot().snapshotId();
      Long recordsSnapshot = recordsBefore.currentSnapshot() == null ? null
          : recordsBefore.currentSnapshot().snapshotId();
      addColumn(rawBefore, key, as);
      addColumn(recordsBefore, key, as);
      String what = (widen ? "widen " : "promote ") + feed.name() + "." + key + (widen ? " to " : " as ") + as.sql();
      crash.at("evolve:after-add");
      Map<String, String> props = Map.of(CommitKeys.STREAM, CommitKeys.EVOLVE_STREAM);
      withProperties(props, () -> spark.sql(backfillRaw(raw.sqlAt(branch), key, as)));
      crash.at("evolve:after-raw");
      withProperties(props, () -> spark.sql(backfillRecords(records.sqlAt(branch), raw.sqlAt(branch), key,
          feed.schema())));
      crash.at("evolve:after-records");
      Table rawAfter = IcebergTables.load(spark, raw.sqlAt(branch));
      Table recordsAfter = IcebergTables.load(spark, records.sqlAt(branch));
      rawAfter.refresh();
      recordsAfter.refresh();
      BackfillAudit.Outcome audit = new BackfillAudit(lh.storage(), workDir(config, branch))
          .audit(rawAfter, rawSnapshot, recordsAfter, recordsSnapshot, key, as);
      List<AuditCheck> failed = audit.checks().stream().filter(c -> !c.passed()).toList();
      if (!failed.isEmpty()) {
        throw new EvolveException("evolve promote refused: audit " + failed.get(0) + "; branch " + branch
            + " kept for inspection, the staging branch unchanged");
      }
      String message = "evolve: " + what + " (" + audit.rawRows() + " archived row(s), " + audit.recordRows()
          + " record(s) backfilled)";
      String merged = refs.merge(refs.branch(branch), staging, message, AUTHOR,
          Map.of(CommitKeys.STREAM, CommitKeys.EVOLVE_STREAM)).orElseThrow(() -> new EvolveException(
              "evolve promote: the staging branch changed " + raw + " or " + records + " meanwhile (a stream ran?); "
                  + "run it again between stream runs"));
      crash.at("evolve:after-merge");
      refs.deleteBranch(branch);
      return new Result(feed.name(), key, as, widen, audit.rawRows(), audit.rawRows() + " archived row(s) and "
          + audit.recordRows() + " record(s) backfilled", audit.checks(), merged);
    }
  }

  static void registerFunctions(SparkSession spark) {
    spark.udf().register(VALUE, (UDF2<String, String, String>) Rescued::value, DataTypes.StringType);
    spark.udf().register(WITHOUT, (UDF2<String, String, String>) Rescued::without, DataTypes.StringType);
  }

  /**
   * The archive's rows that carried the key get its value in the column, converted by Spark's JSON reader as the
   * streams convert it, and lose it from the rescued data; a value that does not convert stays there, and a key sent
   * as null is dropped (the column holds exactly that, as for a declared field).
   */
  static String backfillRaw(String raw, String key, Type type) {
    String rescued = Rescued.DATA.name();
    String converted = "from_json(" + rescued + ", '`" + key + "` " + type.sql() + "').`" + key + "`";
    String value = VALUE + "(" + rescued + ", '" + key + "')";
    return "UPDATE " + raw + " SET `" + key + "` = " + converted + ", " + rescued + " = CASE WHEN " + converted
        + " IS NOT NULL OR " + value + " = 'null' THEN " + WITHOUT + "(" + rescued + ", '" + key + "') ELSE " + rescued
        + " END WHERE " + rescued + " IS NOT NULL AND " + value + " IS NOT NULL";
  }

  /**
   * The deduplicated table's rows get the value of the archived rows they came from: the same values in every column
   * the file declares (several such rows with different values: the greatest, so a rerun picks the same one).
   */
  static String backfillRecords(String records, String raw, String key, FeedSchema file) {
    // the file's columns but the one backfilled (the file may declare it: tidemark bootstrap's promotion of it)
    List<String> cols = file.columns().names().stream().filter(c -> !c.equals(key)).toList();
    StringBuilder on = new StringBuilder();
    for (String c : cols) {
      on.append(on.length() == 0 ? "" : " AND ").append("e.").append(c).append(" <=> r.").append(c);
    }
    return "MERGE INTO " + records + " e USING (SELECT " + String.join(", ", cols) + ", max(`" + key + "`) AS v FROM "
        + raw + " WHERE `" + key + "` IS NOT NULL GROUP BY " + String.join(", ", cols) + ") r ON " + on
        + " WHEN MATCHED AND e.`" + key + "` IS NULL THEN UPDATE SET e.`" + key + "` = r.v";
  }

  /** The column added, or widened in place (Iceberg's type promotion: the data files stay as they are). */
  static void addColumn(Table table, String key, Type type) {
    addColumn(table, key, type, null);
  }

  /**
   * The same, a new column placed before {@code before} (null: last), so that a table whose columns the code lists
   * in an order (the dimension: attributes, then validity) reads in that order.
   */
  static void addColumn(Table table, String key, Type type, String before) {
    table.refresh();
    Types.NestedField field = table.schema().findField(key);
    if (field == null) {
      org.apache.iceberg.UpdateSchema update = table.updateSchema()
          .addColumn(key, iceberg(type), "promoted by tidemark evolve from the rescued data");
      (before == null ? update : update.moveBefore(key, before)).commit();
    } else if (!field.type().equals(iceberg(type))) {
      table.updateSchema().updateColumn(key, iceberg(type).asPrimitiveType()).commit();
    }
  }

  static org.apache.iceberg.types.Type iceberg(Type type) {
    return switch (type.kind()) {
      case INT -> Types.IntegerType.get();
      case BIGINT -> Types.LongType.get();
      case DOUBLE -> Types.DoubleType.get();
      case DECIMAL -> Types.DecimalType.of(type.precision(), type.scale());
      case STRING -> Types.StringType.get();
      case BOOLEAN -> Types.BooleanType.get();
      case DATE -> Types.DateType.get();
      case TIMESTAMP -> Types.TimestampType.withZone();
      default -> throw new EvolveException("evolve promote: no column of type " + type.sql());
    };
  }

  static void withProperties(Map<String, String> props, Runnable write) {
    CommitMetadata.withCommitProperties(props, () -> {
      write.run();
      return 0;
    }, RuntimeException.class);
  }

  static Path workDir(TidemarkConfig config, String branch) {
    return config.home().resolve("work").resolve(branch);
  }
}
