package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.date_format;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.RestatementAudit;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.publish.NessieRefs;
import io.tidemark.stream.Dedup;
import io.tidemark.stream.Provenance;
import io.tidemark.stream.Scd2Upsert;
import io.tidemark.stream.StreamKind;
import io.tidemark.stream.StreamSpec;
import io.tidemark.stream.WindowedCounts;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.projectnessie.model.Branch;

/**
 * Repairs what the streams' watermarks dropped, so that nothing that arrived is lost: write-audit-publish on a
 * Nessie branch. It cuts {@code restate-<run id>} from main, writes there the corrected finalized windows, the
 * dedup's missing first occurrences and surplus repeats, and the company changes the SCD2 stream never applied,
 * with one restatement-log row per correction; audits the branch; and merges it into main as one commit that
 * says what it did, tagged {@code restated-<run id>}. A failed audit leaves main alone and the branch in place.
 * When streams commit to a table on main meanwhile, Nessie refuses the merge; the run then recomputes the
 * corrections on the new head, on a new branch, and tries again.
 */
public final class Restatement {
  public static final String BRANCH = "restate-";
  public static final String TAG = "restated-";
  private static final String AUTHOR = "tidemark-restate";
  private static final DateTimeFormatter RUN_ID = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC);

  /**
   * How a run goes. {@code refPrefix} keeps runs of separate setups (tests, benchmarks) apart in one Nessie;
   * the hooks let tests corrupt the branch before the audit, or commit to main before the publish.
   */
  public record Options(String runId, int maxAttempts, Path workDir, String refPrefix, Consumer<String> afterWrite,
                        Consumer<String> beforePublish) {
    public static Options defaults(TidemarkConfig config) {
      String id = RUN_ID.format(Instant.now()) + "-" + UUID.randomUUID().toString().substring(0, 4);
      return new Options(id, 3, config.home().resolve("restate").resolve(id), "", b -> { }, b -> { });
    }

    public Options withPrefix(String prefix) {
      return new Options(runId, maxAttempts, workDir, prefix, afterWrite, beforePublish);
    }

    public Options withHooks(Consumer<String> afterWrite, Consumer<String> beforePublish) {
      return new Options(runId, maxAttempts, workDir, refPrefix, afterWrite, beforePublish);
    }
  }

  /** What a run did. {@code published} false with no corrections means there was nothing to restate. */
  public record Result(String runId, String branch, boolean published, String tag, int attempts, List<Row> windows,
                       long events, long companyChanges, List<AuditCheck> checks, String mainHash,
                       Map<String, String> marks) {
    public boolean nothingToDo() {
      return windows.isEmpty() && events == 0 && companyChanges == 0;
    }
  }

  private final Lakehouse lakehouse;
  private final SparkSession spark;
  private final TidemarkConfig config;
  private final Options options;

  public Restatement(Lakehouse lakehouse, Options options) {
    this.lakehouse = lakehouse;
    this.spark = lakehouse.spark();
    this.config = lakehouse.config();
    this.options = options;
  }

  public Result run() throws Exception {
    String main = config.nessieRef();
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      Marks before = refs.newestTagProperties(options.refPrefix() + TAG).map(Marks::of).orElse(Marks.none());
      for (int attempt = 1; attempt <= options.maxAttempts(); attempt++) {
        Marks now = current();
        String name = options.refPrefix() + BRANCH + options.runId() + (attempt > 1 ? "-" + attempt : "");
        Branch branch = refs.createBranch(name, refs.branch(main));
        Corrections corrections = new Corrections(spark, config.tables(), name, before, now, config.countsWindow());
        // computed once and cut from their inputs: after the writes, recomputing them would find nothing to do
        Dataset<Row> counts = corrections.counts().localCheckpoint(true);
        Dataset<Row> events = corrections.dedup().localCheckpoint(true);
        Dataset<Row> changes = corrections.companyChanges().localCheckpoint(true);
        corrections.release();
        List<Row> windows = counts.orderBy("w_start", "company_id").collectAsList();
        long nEvents = events.count();
        long nChanges = changes.count();
        if (windows.isEmpty() && nEvents == 0 && nChanges == 0) {
          refs.deleteBranch(name);
          return new Result(options.runId(), name, false, null, attempt, windows, 0, 0, List.of(),
              refs.branch(main).getHash(), now.properties());
        }
        List<String> companies = changes.select("company_id").distinct().as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
        write(name, counts, events, changes, companies);
        options.afterWrite().accept(name);
        List<AuditCheck> checks = new RestatementAudit(spark, lakehouse.storage(), config.tables(), name,
            options.workDir()).audit(counts, events, companies, now.rawEvents().orElse(0L), config.countsWindow());
        record(name, checks);
        List<AuditCheck> failed = checks.stream().filter(c -> !c.passed()).toList();
        if (!failed.isEmpty()) {
          return new Result(options.runId(), name, false, null, attempt, windows, nEvents, nChanges, checks,
              refs.branch(main).getHash(), now.properties());
        }
        if (attempt == 1) {
          options.beforePublish().accept(name);
        }
        Map<String, String> props = new LinkedHashMap<>(now.properties());
        props.put(Provenance.RUN_ID, options.runId());
        props.put("tidemark.branch", name);
        props.put("tidemark.windows-corrected", Integer.toString(windows.size()));
        props.put("tidemark.events-corrected", Long.toString(nEvents));
        props.put("tidemark.company-changes-applied", Long.toString(nChanges));
        props.put("tidemark.audit", checks.size() + " checks passed");
        String message = "restatement " + options.runId() + ": " + windows.size() + " window(s), " + nEvents
            + " event(s), " + nChanges + " company change(s) corrected; audit passed (" + checks.size() + " checks)";
        Optional<String> merged = refs.merge(branch, main, message, AUTHOR, props);
        if (merged.isPresent()) {
          String tag = options.refPrefix() + TAG + options.runId();
          refs.tag(tag, main, merged.get());
          return new Result(options.runId(), name, true, tag, attempt, windows, nEvents, nChanges, checks, merged.get(),
              now.properties());
        }
        // a stream committed to a table this run corrected: recompute on the new head
        refs.deleteBranch(name);
      }
      throw new RestatementException("main kept changing under the restatement: gave up after "
          + options.maxAttempts() + " attempts; run it again when the streams are quieter");
    }
  }

  /** The raw archives' current snapshots and the streams' watermarks, read now. */
  private Marks current() {
    return new Marks(snapshot(config.tables().rawEvents()), snapshot(config.tables().rawCompanyChanges()),
        watermark(config.tables().eventCounts(), WindowedCounts.NAME),
        watermark(config.tables().events(), Dedup.NAME),
        watermark(config.tables().companies(), Scd2Upsert.NAME));
  }

  private Optional<Long> snapshot(TableName table) {
    return Provenance.head(spark, table);
  }

  /** From the stream's checkpoint, else from the provenance of its newest commit. */
  private Optional<Instant> watermark(TableName table, String stream) {
    return Provenance.watermark(spark, StreamSpec.of(StreamKind.named(stream), config).withTable(table));
  }

  private void write(String branch, Dataset<Row> counts, Dataset<Row> events, Dataset<Row> changes,
                     List<String> companies) throws Exception {
    Map<String, String> props = Provenance.ofRestatement(options.runId());
    CommitMetadata.withCommitProperties(props, () -> {
      if (!counts.isEmpty()) {
        counts.createOrReplaceTempView("tidemark_restate_counts");
        spark.sql("MERGE INTO " + config.tables().eventCounts().sqlAt(branch) + " t USING tidemark_restate_counts s "
            + "ON t.company_id = s.company_id AND t.w_start = s.w_start "
            + "WHEN MATCHED THEN UPDATE SET t.n = s.new_n "
            + "WHEN NOT MATCHED THEN INSERT (company_id, w_start, n) VALUES (s.company_id, s.w_start, s.new_n)");
      }
      if (!events.isEmpty()) {
        events.createOrReplaceTempView("tidemark_restate_events");
        String target = config.tables().events().sqlAt(branch);
        spark.sql("MERGE INTO " + target + " t USING (SELECT DISTINCT event_id FROM tidemark_restate_events) s "
            + "ON t.event_id = s.event_id WHEN MATCHED THEN DELETE");
        spark.sql("INSERT INTO " + target + " SELECT event_id, company_id, amount, event_ts FROM tidemark_restate_events");
      }
      if (!companies.isEmpty()) {
        String log = config.tables().companyChanges().sqlAt(branch);
        String dim = config.tables().companies().sqlAt(branch);
        Scd2Upsert.append(changes, log);
        Dataset<Row> keys = spark.createDataset(companies, org.apache.spark.sql.Encoders.STRING()).toDF("company_id");
        Dataset<Row> diff = Scd2Upsert.difference(keys, log, dim).persist();
        if (!diff.isEmpty()) {
          Scd2Upsert.merge(diff, dim);
        }
        diff.unpersist();
      }
      logCorrections(branch, counts, events, changes);
      return null;
    }, Exception.class);
  }

  /** One restatement-log row per correction: what, where, old value, new value. */
  private void logCorrections(String branch, Dataset<Row> counts, Dataset<Row> events, Dataset<Row> changes)
      throws Exception {
    String ts = "yyyy-MM-dd HH:mm:ss";
    Dataset<Row> w = counts.select(lit(config.tables().eventCounts().toString()).as("target_table"),
        when(col("old_n").isNull(), lit("window_insert")).otherwise(lit("window_recount")).as("correction"),
        concat_ws("|", col("company_id"), date_format(col("w_start"), ts)).as("key"),
        col("old_n").cast("string").as("old_value"), col("new_n").cast("string").as("new_value"));
    Dataset<Row> e = events.select(lit(config.tables().events().toString()).as("target_table"),
        when(col("old_rows").equalTo(0), lit("event_added"))
            .when(col("old_rows").gt(1), lit("duplicates_removed")).otherwise(lit("event_replaced")).as("correction"),
        col("event_id").cast("string").as("key"), concat_ws(" ", col("old_rows").cast("string"), lit("row(s)"))
            .as("old_value"),
        concat_ws("|", col("company_id"), col("amount").cast("string"), date_format(col("event_ts"), ts)).as("new_value"));
    Dataset<Row> c = changes.select(lit(config.tables().companies().toString()).as("target_table"),
        lit("scd2_late_change").as("correction"),
        concat_ws("@", col("company_id"), date_format(col("change_ts"), ts)).as("key"), lit(null).cast("string")
            .as("old_value"),
        when(col("deleted"), lit("deleted")).otherwise(concat_ws("|", col("name"), col("tier"))).as("new_value"));
    w.unionByName(e).unionByName(c)
        .select(lit(options.runId()).as("run_id"), lit(branch).as("branch"), col("target_table"), col("correction"),
            col("key"), col("old_value"), col("new_value"), current_timestamp().as("corrected_at"))
        .writeTo(config.tables().restatementLog().sqlAt(branch)).append();
  }

  /** The audit's checks, on the branch: published with it, or left there for inspection. */
  private void record(String branch, List<AuditCheck> checks) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (AuditCheck c : checks) {
      rows.add(org.apache.spark.sql.RowFactory.create(options.runId(), branch, c.name(), c.table(), c.passed(),
          c.detail()));
    }
    spark.createDataFrame(rows, Schemas.AUDIT_CHECK)
        .withColumn("checked_at", current_timestamp())
        .writeTo(config.tables().auditChecks().sqlAt(branch)).append();
  }
}
