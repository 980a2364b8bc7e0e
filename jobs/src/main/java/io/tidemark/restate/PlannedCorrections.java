package io.tidemark.restate;

import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.Fields;
import io.tidemark.core.RestatementRecords;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;

/**
 * A plan's corrections as rows of the restatement plan table ({@link CorrectionPlan}), written on the run's branch by
 * the plan stage and read back by the write and the audit at the snapshot the plan recorded: what will be corrected
 * is decided once, and a person can read it before anything is written
 * ({@code SELECT * FROM audit.restatement_plan@restate-<id>}).
 */
final class PlannedCorrections {
  private PlannedCorrections() {}

  /** Appends the corrections in one commit carrying {@code summary}; the snapshot id of that commit. */
  static long write(Table table, String runId, String branch, int attempt, CorrectionSet c,
                    Map<String, String> summary) {
    DriverWrites.append(table, RestatementRecords.PLAN, CorrectionPlan.rows(c, runId, branch, attempt), summary);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** The corrections an attempt of a run planned, as the table held them at {@code snapshot}. */
  static CorrectionSet read(Table table, long snapshot, String runId, int attempt) {
    List<Fields> rows = DriverReads.read(table, snapshot, Expressions.and(
        Expressions.equal(RestatementRecords.RUN_ID.name(), runId),
        Expressions.equal(RestatementRecords.ATTEMPT.name(), attempt)), RestatementRecords.PLAN.names(), false,
        Long.MAX_VALUE).stream().map(IcebergFields::of).toList();
    try {
      return CorrectionPlan.read(rows);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(table.name() + ": " + e.getMessage(), e);
    }
  }
}
