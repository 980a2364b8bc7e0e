package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import java.util.List;

/**
 * The tables a pipeline keeps beside its feeds' own: the quarantine of every feed's invalid lines, the record of
 * every micro-batch, and the restatement's log, plan and audit checks.
 */
public record SharedTables(TableName rejected, TableName streamBatches, TableName restatementLog,
                           TableName restatementPlan, TableName auditChecks) {
  public static final SharedTables DEFAULTS = new SharedTables(TableName.parse("raw.rejected"),
      TableName.parse("audit.stream_batches"), TableName.parse("audit.restatement_log"),
      TableName.parse("audit.restatement_plan"), TableName.parse("audit.checks"));

  public List<TableName> all() {
    return List.of(rejected, streamBatches, restatementLog, restatementPlan, auditChecks);
  }
}
