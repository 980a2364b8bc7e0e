package io.tidemark.restate;

import static org.apache.spark.sql.functions.current_timestamp;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.RestatementAudit;
import io.tidemark.lakehouse.Storage;
import io.tidemark.config.Tables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * The audit step: the branch's head checked against the corrections, and the checks written on the branch
 * ({@code audit.checks}), replacing those of an earlier audit of the same branch, so the table holds the audit
 * the branch was published with. The earlier verdicts stay in the branch's commit log.
 */
final class BranchAudit {
  private static final StructType CHECKS = io.tidemark.lakehouse.Schemas.AUDIT_CHECK;

  private final SparkSession spark;
  private final Storage storage;
  private final Tables tables;
  private final Duration window;

  BranchAudit(SparkSession spark, Storage storage, Tables tables, Duration window) {
    this.spark = spark;
    this.storage = storage;
    this.tables = tables;
    this.window = window;
  }

  List<AuditCheck> audit(Plan plan, CorrectionSet c, Path workDir) throws Exception {
    List<AuditCheck> checks = new RestatementAudit(spark, storage, tables, plan.branch(), workDir)
        .audit(c.counts(), c.events(), c.companies(), plan.now().rawEvents().orElse(0L), window);
    record(plan, checks);
    return checks;
  }

  private void record(Plan plan, List<AuditCheck> checks) throws Exception {
    String table = tables.auditChecks().sqlAt(plan.branch());
    String mine = " WHERE run_id = '" + plan.runId() + "' AND branch = '" + plan.branch() + "'";
    if (spark.sql("SELECT 1 FROM " + table + mine + " LIMIT 1").count() > 0) {
      spark.sql("DELETE FROM " + table + mine);
    }
    List<Row> rows = new ArrayList<>();
    for (AuditCheck ch : checks) {
      rows.add(RowFactory.create(plan.runId(), plan.branch(), ch.name(), ch.table(), ch.passed(), ch.detail()));
    }
    spark.createDataFrame(rows, CHECKS).withColumn("checked_at", current_timestamp()).writeTo(table).append();
  }
}
