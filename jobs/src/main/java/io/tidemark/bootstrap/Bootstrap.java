package io.tidemark.bootstrap;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.evolve.Promotion;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
import io.tidemark.pipeline.Declarations;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Creates what the pipeline writes into: the buckets, the staging branch, the namespaces and every table. Idempotent:
 * what exists is only checked, so a second run makes no Nessie commit. A table with a missing column gets it added;
 * a column of the wrong type is an error, never silently rewritten.
 *
 * <p>Tables are made on the staging branch, where the writers commit; when nothing else waits there to be published
 * (a new pipeline, or every arrival already published), what bootstrap made is published at once, so readers of the
 * published branch find the tables. Otherwise it goes with the next {@code tidemark publish}, after the checks.
 */
public final class Bootstrap {
  private Bootstrap() {}

  /** What a run did; all lists empty means it changed nothing. */
  public record Result(List<String> createdBuckets, List<String> createdNamespaces, List<String> createdTables,
                       List<String> alteredTables, List<String> unchangedTables) {
    public boolean changedNothing() {
      return createdBuckets.isEmpty() && createdNamespaces.isEmpty() && createdTables.isEmpty()
          && alteredTables.isEmpty();
    }

    boolean changedTables() {
      return !createdNamespaces.isEmpty() || !createdTables.isEmpty() || !alteredTables.isEmpty();
    }
  }

  /**
   * A whole bootstrap: the staging branch (made from the published one when missing), then the buckets and tables
   * on it ({@link #run}), then the publish of what it made when nothing else was staged. {@code lakehouse} is a
   * writer's ({@link TidemarkConfig#writing}) whose SparkSession is not started yet or works on the staging branch.
   */
  public static Setup setUp(Lakehouse lakehouse) {
    TidemarkConfig config = lakehouse.config();
    if (!config.isWriting()) {
      throw new IllegalArgumentException("bootstrap writes on the staging branch: open the lakehouse with writing()");
    }
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      String published = config.publishedRef();
      String staging = config.stagingBranch();
      boolean branchMade = stagingBranch(refs, config);
      String before = refs.branch(staging).getHash();
      boolean nothingStaged = refs.changedKeys(published, refs.hash(published).orElseThrow(), staging, before)
          .isEmpty();
      List<String> promoted = promote(lakehouse);
      Result result = run(lakehouse.spark(), lakehouse.storage(), config);
      String publishedAt = null;
      if (result.changedTables() && nothingStaged) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(CommitKeys.STAGE, "bootstrap");
        props.put(CommitKeys.PUBLISHED, refs.branch(staging).getHash());
        publishedAt = refs.merge(refs.branch(staging), published, "bootstrap: " + summary(result) + ", published from "
            + staging, SparkSessions.AUTHOR, props).orElseThrow(() -> new IllegalStateException("cannot publish "
            + "what bootstrap made: " + published + " changed the same tables; run `tidemark publish`"));
      }
      return new Setup(branchMade ? staging : null, promoted, result, publishedAt);
    }
  }

  /**
   * The optional columns the pipeline file added to feeds whose tables exist, each promoted as {@code tidemark evolve
   * promote} does (added to the feed's tables, backfilled from the raw archive's rescued data, audited, merged into
   * the staging branch); a change the file may not make is refused first. What each promotion did, in words.
   */
  private static List<String> promote(Lakehouse lakehouse) {
    Pipeline p = lakehouse.config().pipeline();
    List<TableDefinition> definitions = TableCatalog.all(p);
    List<String> out = new ArrayList<>();
    for (Declarations.Difference d : Declarations.compare(p, recorded(lakehouse.spark(), definitions))) {
      if (d.refusal() != null) {
        throw new PipelineException(p.source() + ": " + d.refusal());
      }
      for (io.tidemark.core.Column c : d.promoted()) {
        Promotion.Result r = new Promotion(lakehouse, io.tidemark.CrashPoints.NONE).declare(d.feed(), c);
        if (r.merged() != null) {
          out.add(r.summary());
        }
      }
    }
    return out;
  }

  /**
   * The staging branch, made from the published one when missing; whether it was made. What a writer's catalog needs
   * before its first table: a benchmark, which makes tables of its own, takes this alone.
   */
  public static boolean stagingBranch(Lakehouse lakehouse) {
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      return stagingBranch(refs, lakehouse.config());
    }
  }

  private static boolean stagingBranch(NessieRefs refs, TidemarkConfig config) {
    String published = config.publishedRef();
    String staging = config.stagingBranch();
    if (!refs.exists(staging) && refs.exists(published) && refs.log(published).findFirst().isEmpty()) {
      // Nessie merges only branches with a common ancestor commit, and a new Nessie's main has no commit yet
      refs.mark(published, "tidemark: " + published + " shows what `tidemark publish` published from " + staging,
          SparkSessions.AUTHOR, Map.of(CommitKeys.STAGE, "bootstrap"));
    }
    return refs.ensureBranch(staging, published);
  }

  /**
   * A whole bootstrap's outcome: the staging branch when it was made, the columns a changed pipeline file added
   * (promoted, in words), the tables, the publish commit (or null).
   */
  public record Setup(String branchMade, List<String> promoted, Result result, String publishedAt) {}

  private static String summary(Result r) {
    List<String> parts = new ArrayList<>();
    if (!r.createdTables().isEmpty()) {
      parts.add(r.createdTables().size() + " table(s) created");
    }
    if (!r.alteredTables().isEmpty()) {
      parts.add(r.alteredTables().size() + " altered");
    }
    if (parts.isEmpty()) {
      parts.add(r.createdNamespaces().size() + " namespace(s) created");
    }
    return String.join(", ", parts);
  }

  public static Result run(SparkSession spark, Storage storage, TidemarkConfig config) {
    // a condition Spark's analyzer refuses (an unknown function, not a boolean) stops bootstrap before it makes anything
    io.tidemark.stream.Judgement.check(spark, config.pipeline());
    List<String> buckets = new ArrayList<>();
    for (String bucket : new LinkedHashSet<>(List.of(config.landingBucket(), config.warehouseBucket()))) {
      if (storage.ensureBucket(bucket)) {
        buckets.add(bucket);
      }
    }

    List<TableDefinition> definitions = TableCatalog.all(config.pipeline());
    refuseChanges(spark, config.pipeline(), definitions);
    Set<String> existingNamespaces = new LinkedHashSet<>();
    for (Row r : spark.sql("SHOW NAMESPACES").collectAsList()) {
      existingNamespaces.add(r.getString(0));
    }
    List<String> namespaces = new ArrayList<>();
    for (TableDefinition d : definitions) {
      String ns = d.name().namespace();
      if (!existingNamespaces.contains(ns)) {
        spark.sql("CREATE NAMESPACE IF NOT EXISTS `" + ns + "`");
        existingNamespaces.add(ns);
        namespaces.add(ns);
      }
    }

    List<String> created = new ArrayList<>();
    List<String> altered = new ArrayList<>();
    List<String> unchanged = new ArrayList<>();
    for (TableDefinition d : definitions) {
      if (!spark.catalog().tableExists(d.name().toString())) {
        spark.sql(d.createSql());
        created.add(d.name().toString());
      } else if (reconcile(spark, d)) {
        altered.add(d.name().toString());
      } else {
        unchanged.add(d.name().toString());
      }
    }
    // the feeds' expectations, recorded with the raw archives: a changed rule judges from the next arrival on
    ExpectationRecord.record(spark, storage, config).forEach((table, what) -> {
      // a table made now records its first version as part of being made
      if (!created.contains(table) && !altered.contains(table)) {
        altered.add(table + " (" + what + ")");
      }
    });
    return new Result(buckets, namespaces, created, altered, unchanged);
  }

  /**
   * What the pipeline file declares against what each existing table recorded when it was made: a change that would
   * alter what a table or a checkpoint holds is refused in one line, before anything is made ({@link Declarations}).
   */
  private static void refuseChanges(SparkSession spark, Pipeline p, List<TableDefinition> definitions) {
    for (Declarations.Difference d : Declarations.compare(p, recorded(spark, definitions))) {
      if (d.refusal() != null) {
        throw new PipelineException(p.source() + ": " + d.refusal());
      }
    }
  }

  /** The declarations the existing tables recorded, by table. */
  static Map<TableName, Map<String, String>> recorded(SparkSession spark, List<TableDefinition> definitions) {
    Map<TableName, Map<String, String>> out = new LinkedHashMap<>();
    for (TableDefinition d : definitions) {
      if (!d.declared().isEmpty() && spark.catalog().tableExists(d.name().toString())) {
        Map<String, String> props = new LinkedHashMap<>();
        for (Row r : spark.sql("SHOW TBLPROPERTIES " + d.name().sql()).collectAsList()) {
          props.put(r.getString(0), r.getString(1));
        }
        out.put(d.name(), Declarations.recorded(props));
      }
    }
    return out;
  }

  /**
   * Checks an existing table against its definition: adds missing columns and missing tidemark properties,
   * fails on a column of another type. True when it changed the table.
   */
  static boolean reconcile(SparkSession spark, TableDefinition d) {
    Map<String, String> missing = missingColumns(spark.table(d.name().sql()).schema(), d);
    boolean changed = false;
    if (!missing.isEmpty()) {
      List<String> cols = new ArrayList<>();
      missing.forEach((c, t) -> cols.add("`" + c + "` " + t));
      spark.sql("ALTER TABLE " + d.name().sql() + " ADD COLUMNS (" + String.join(", ", cols) + ")");
      changed = true;
    }
    Map<String, String> props = new LinkedHashMap<>();
    for (Row r : spark.sql("SHOW TBLPROPERTIES " + d.name().sql()).collectAsList()) {
      props.put(r.getString(0), r.getString(1));
    }
    List<String> toSet = new ArrayList<>();
    d.properties().forEach((k, v) -> {
      if (!v.equals(props.get(k))) {
        toSet.add("'" + k + "'='" + v.replace("'", "\\'") + "'");
      }
    });
    if (!toSet.isEmpty()) {
      spark.sql("ALTER TABLE " + d.name().sql() + " SET TBLPROPERTIES (" + String.join(", ", toSet) + ")");
      changed = true;
    }
    return changed;
  }

  /**
   * The definition's columns that the schema lacks; throws {@link SchemaMismatchException} for a column that
   * is there with another type.
   */
  public static Map<String, String> missingColumns(StructType schema, TableDefinition d) {
    Map<String, String> missing = new LinkedHashMap<>();
    Map<String, StructField> actual = new LinkedHashMap<>();
    for (StructField f : schema.fields()) {
      actual.put(f.name().toLowerCase(java.util.Locale.ROOT), f);
    }
    d.columns().forEach((name, type) -> {
      StructField f = actual.get(name.toLowerCase(java.util.Locale.ROOT));
      if (f == null) {
        missing.put(name, type);
      } else if (!f.dataType().sql().equalsIgnoreCase(type)) {
        throw new SchemaMismatchException(d.name(), "column " + name + " is " + f.dataType().sql()
            + ", expected " + type);
      }
    });
    return missing;
  }

  /** A table exists with a shape tidemark cannot write into. */
  public static class SchemaMismatchException extends io.tidemark.TidemarkException {
    public SchemaMismatchException(TableName table, String what) {
      super("table " + table + ": " + what + "; rename or drop the table, then run: tidemark bootstrap");
    }
  }
}
