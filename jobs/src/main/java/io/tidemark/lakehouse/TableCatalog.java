package io.tidemark.lakehouse;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import java.util.List;

/** The definition of every tidemark table, under the name it is given; the columns come from {@link Schemas}. */
public final class TableCatalog {
  private TableCatalog() {}

  public static List<TableDefinition> all(Tables t) {
    return List.of(rawEvents(t.rawEvents()), rejected(t.rejected()), rawCompanyChanges(t.rawCompanyChanges()),
        events(t.events()), eventCounts(t.eventCounts()), companies(t.companies()), companyChanges(t.companyChanges()),
        restatementLog(t.restatementLog()), restatementPlan(t.restatementPlan()), auditChecks(t.auditChecks()),
        streamBatches(t.streamBatches()));
  }

  public static TableDefinition rawEvents(TableName name) {
    return new TableDefinition(name, Schemas.concat(Schemas.EVENT, Schemas.INGEST),
        List.of("days(event_ts)"),
        "Every parsed event as it arrived, duplicates and late ones included (no watermark)");
  }

  public static TableDefinition rejected(TableName name) {
    return new TableDefinition(name, Schemas.concat(Schemas.REJECTED_LINE, Schemas.INGEST),
        List.of("days(ingest_ts)"),
        "Quarantine: input lines that do not parse or miss required fields, with the reason");
  }

  public static TableDefinition rawCompanyChanges(TableName name) {
    return new TableDefinition(name, Schemas.concat(Schemas.COMPANY_CHANGE, Schemas.INGEST),
        List.of("days(change_ts)"),
        "Every parsed company change as it arrived, late and repeated ones included (no watermark)");
  }

  public static TableDefinition companyChanges(TableName name) {
    return new TableDefinition(name, Schemas.COMPANY_CHANGE,
        List.of("bucket(16, company_id)"),
        "The company changes applied to the SCD2 dimension, once each; its history is rebuilt from them");
  }

  public static TableDefinition events(TableName name) {
    return new TableDefinition(name, Schemas.EVENT,
        List.of("days(event_ts)"),
        "Events deduplicated on event_id within a 30-minute watermark");
  }

  public static TableDefinition eventCounts(TableName name) {
    return new TableDefinition(name, Schemas.WINDOW_COUNT,
        List.of("days(w_start)"),
        "Events per company and 5-minute event-time window, appended when the window finalizes");
  }

  public static TableDefinition companies(TableName name) {
    return new TableDefinition(name, Schemas.COMPANY_VERSION,
        List.of(),
        "Company dimension, SCD2: one open version per company, history kept");
  }

  public static TableDefinition restatementLog(TableName name) {
    return new TableDefinition(name, Schemas.CORRECTION,
        List.of("days(corrected_at)"),
        "One row per correction made by a restatement run");
  }

  public static TableDefinition restatementPlan(TableName name) {
    return new TableDefinition(name, Schemas.PLANNED_CORRECTION,
        List.of(),
        "What each restatement planned to correct, written on its branch by its plan stage");
  }

  public static TableDefinition auditChecks(TableName name) {
    return new TableDefinition(name, Schemas.AUDIT_CHECK.add("checked_at", "TIMESTAMP"),
        List.of("days(checked_at)"),
        "Every check of every audit, with its result");
  }

  public static TableDefinition streamBatches(TableName name) {
    return new TableDefinition(name, Schemas.STREAM_BATCH,
        List.of("days(started_at)"),
        "One row per micro-batch of every stream run: input, output, late rows, state, watermark, timings");
  }
}
