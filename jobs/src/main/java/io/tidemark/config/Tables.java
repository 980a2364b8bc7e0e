package io.tidemark.config;

import java.util.List;

/** The names of tidemark's tables, each configurable (see {@link Setting}). */
public record Tables(
    TableName rawEvents,
    TableName rejected,
    TableName rawCompanyChanges,
    TableName events,
    TableName eventCounts,
    TableName companies,
    TableName companyChanges,
    TableName restatementLog,
    TableName restatementPlan,
    TableName auditChecks,
    TableName streamBatches) {

  public List<TableName> all() {
    return List.of(rawEvents, rejected, rawCompanyChanges, events, eventCounts, companies, companyChanges,
        restatementLog, restatementPlan, auditChecks, streamBatches);
  }
}
