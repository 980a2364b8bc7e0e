package io.tidemark.config;

import java.util.List;

/** The names of tidemark's tables, each configurable (see {@link Setting}). */
public record Tables(
    TableName rawEvents,
    TableName rejected,
    TableName events,
    TableName eventCounts,
    TableName companies,
    TableName restatementLog,
    TableName auditChecks) {

  public List<TableName> all() {
    return List.of(rawEvents, rejected, events, eventCounts, companies, restatementLog, auditChecks);
  }
}
