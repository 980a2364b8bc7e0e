package io.tidemark.restate;

import io.tidemark.core.Aggregation;
import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.RestatementRecords;
import io.tidemark.core.Shapes;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import java.util.LinkedHashMap;
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
   * The pipeline's shapes as the raw archives at {@code at} declare its feeds (fields promoted into them included):
   * the order in which the plan's records and changes carry their values, the same at the plan's commit and at every
   * later commit of its branch.
   */
  static Shapes shapes(PinnedTables at, Pipeline p) {
    Map<String, Aggregation> aggregations = new LinkedHashMap<>();
    p.aggregates().forEach(a -> aggregations.put(a.name(), a.rule()));
    Map<String, FeedSchema> facts = new LinkedHashMap<>();
    for (FactFeed f : p.facts()) {
      facts.put(f.name(), FeedDeclarations.of(RunContext.table(at, f.raw().table()), f.schema()));
    }
    Map<String, DimensionSchema> dims = new LinkedHashMap<>();
    for (DimensionFeed d : p.dimensions()) {
      dims.put(d.name(), FeedDeclarations.of(RunContext.table(at, d.raw().table()), d.dimension()));
    }
    return new Shapes(aggregations, facts, dims);
  }

  /** Appends the corrections in one commit carrying {@code summary}; the snapshot id of that commit. */
  static long write(Table table, String runId, String branch, int attempt, CorrectionSet c, Shapes shapes,
                    Map<String, String> summary) {
    DriverWrites.append(table, RestatementRecords.PLAN, CorrectionPlan.rows(c, runId, branch, attempt, shapes),
        summary);
    table.refresh();
    return table.currentSnapshot().snapshotId();
  }

  /** The corrections an attempt of a run planned, as the table held them at {@code snapshot}. */
  static CorrectionSet read(Table table, long snapshot, String runId, int attempt, Shapes shapes) {
    List<Fields> rows = DriverReads.read(table, snapshot, Expressions.and(
        Expressions.equal(RestatementRecords.RUN_ID.name(), runId),
        Expressions.equal(RestatementRecords.ATTEMPT.name(), attempt)), RestatementRecords.PLAN.names(), false,
        Long.MAX_VALUE).stream().map(IcebergFields::of).toList();
    try {
      return CorrectionPlan.read(rows, shapes);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(table.name() + ": " + e.getMessage(), e);
    }
  }
}
