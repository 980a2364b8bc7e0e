package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.RestatementAudit;
import io.tidemark.core.AuditRecords;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.TableSchemas;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.stream.Provenance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The audit step: the branch as it is at one commit checked against the plan's corrections
 * ({@link RestatementAudit}), and the checks written on the branch ({@code audit.checks}), replacing those of an
 * earlier audit of the same branch, so the table holds the audit the branch was merged with. The earlier
 * verdicts stay in the branch's commit log.
 */
final class BranchAudit {
  private final RunContext ctx;

  BranchAudit(RunContext ctx) {
    this.ctx = ctx;
  }

  /** Audits the branch at commit {@code head} and records the checks on it. */
  List<AuditCheck> audit(Plan plan, CorrectionSet c, String head) throws Exception {
    PinnedTables at = PinnedTables.at(ctx.spark(), plan.branch(), head);
    RestatementAudit.Subject subject = new RestatementAudit.Subject(at::get, plan.now().snapshots());
    List<AuditCheck> checks = new RestatementAudit(ctx.lakehouse.storage(), ctx.pipeline, ctx.options.workDir())
        .audit(subject, c);
    record(plan, checks);
    return checks;
  }

  /** This run's rows of an earlier audit of the branch removed, these written: one commit on the branch. */
  private void record(Plan plan, List<AuditCheck> checks) {
    Table table = RunContext.table(PinnedTables.onBranch(ctx.spark(), plan.branch()), ctx.pipeline.shared().auditChecks());
    Long readAt = table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId();
    Expression mine = mine(plan);
    List<DriverWrites.Position> earlier = new ArrayList<>();
    for (Record r : DriverReads.read(table, readAt, mine, List.of(AuditRecords.RUN_ID.name()), true,
        Long.MAX_VALUE)) {
      earlier.add(new DriverWrites.Position((String) r.getField(DriverReads.FILE), (Long) r.getField(DriverReads.POS)));
    }
    Instant now = Instant.now();
    List<List<Object>> rows = checks.stream().map(ch -> List.<Object>of(plan.runId(), plan.branch(), ch.name(),
        ch.table(), ch.passed(), ch.detail(), now)).toList();
    DriverWrites.replace(table, readAt, earlier, readAt == null ? Map.of() : DriverReads.dataFiles(table, readAt, mine,
        earlier.stream().map(DriverWrites.Position::file).collect(Collectors.toSet())),
        TableSchemas.AUDIT_CHECKS.columns(), rows, mine, Provenance.ofRestatement(plan.runId()));
  }

  /** The checks an earlier process's audit recorded on the branch. */
  List<AuditCheck> recorded(Plan plan) {
    Table table = RunContext.table(PinnedTables.onBranch(ctx.spark(), plan.branch()), ctx.pipeline.shared().auditChecks());
    return DriverReads.read(table, null, mine(plan), AuditRecords.CHECK.names(), false, Long.MAX_VALUE).stream()
        .map(IcebergFields::of).map(f -> new AuditCheck(f.string(AuditRecords.CHECK_NAME),
            f.string(AuditRecords.TARGET_TABLE), f.bool(AuditRecords.PASSED), f.string(AuditRecords.DETAIL)))
        .toList();
  }

  private static Expression mine(Plan plan) {
    return Expressions.and(Expressions.equal(AuditRecords.RUN_ID.name(), plan.runId()),
        Expressions.equal(AuditRecords.BRANCH.name(), plan.branch()));
  }
}
