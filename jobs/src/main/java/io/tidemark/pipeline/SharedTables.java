package io.tidemark.pipeline;

import io.tidemark.config.TableName;
import java.util.List;

/**
 * The tables a pipeline keeps beside its feeds' own: the quarantine of every feed's invalid lines, the record of
 * every micro-batch, the restatement's log, plan and audit checks, and the record of what every micro-batch found of
 * each expectation.
 */
public record SharedTables(TableName rejected, TableName streamBatches, TableName restatementLog,
                           TableName restatementPlan, TableName auditChecks, TableName expectations) {
  public static final SharedTables DEFAULTS = new SharedTables(TableName.parse("raw.rejected"),
      TableName.parse("audit.stream_batches"), TableName.parse("audit.restatement_log"),
      TableName.parse("audit.restatement_plan"), TableName.parse("audit.checks"),
      TableName.parse("audit.expectations"));

  /** The file's names of the tables ({@code tables.<name>}), in the order of {@link #all}. */
  public static final List<String> FIELDS = List.of("rejected", "stream_batches", "restatement_log",
      "restatement_plan", "audit_checks", "expectations");

  public List<TableName> all() {
    return List.of(rejected, streamBatches, restatementLog, restatementPlan, auditChecks, expectations);
  }
}
