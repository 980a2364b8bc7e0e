package io.tidemark.restate;

import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.Events;
import io.tidemark.core.Feed;
import io.tidemark.core.Fields;
import io.tidemark.core.RestatementRecords;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.FeedDeclarations;
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

  /**
   * The fields promoted into the feeds as the raw archives at {@code at} declare them: the order in which the plan's
   * fixes carry their values, the same at the plan's commit and at every later commit of its branch.
   */
  static CorrectionPlan.Promoted promoted(PinnedTables at, Tables tables) {
    return new CorrectionPlan.Promoted(
        FeedDeclarations.of(RunContext.table(at, tables.rawEvents()), Feed.EVENTS).beyond(Events.FEED),
        FeedDeclarations.of(RunContext.table(at, tables.rawCompanyChanges()), Feed.COMPANIES)
            .beyond(CompanyChanges.FEED));
  }

  /** Appends the corrections in one commit carrying {@code summary}; the snapshot id of that commit. */
  static long write(Table table, String runId, String branch, int attempt, CorrectionSet c,
                    CorrectionPlan.Promoted promoted, Map<String, String> summary) {
    DriverWrites.append(table, RestatementRecords.PLAN, CorrectionPlan.rows(c, runId, branch, attempt, promoted),
        summary);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** The corrections an attempt of a run planned, as the table held them at {@code snapshot}. */
  static CorrectionSet read(Table table, long snapshot, String runId, int attempt, CorrectionPlan.Promoted promoted) {
    List<Fields> rows = DriverReads.read(table, snapshot, Expressions.and(
        Expressions.equal(RestatementRecords.RUN_ID.name(), runId),
        Expressions.equal(RestatementRecords.ATTEMPT.name(), attempt)), RestatementRecords.PLAN.names(), false,
        Long.MAX_VALUE).stream().map(IcebergFields::of).toList();
    try {
      return CorrectionPlan.read(rows, promoted);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(table.name() + ": " + e.getMessage(), e);
    }
  }
}
