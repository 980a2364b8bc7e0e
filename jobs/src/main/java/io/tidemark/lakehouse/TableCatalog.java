package io.tidemark.lakehouse;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The definition of every tidemark table, under the name it is given. */
public final class TableCatalog {
  private TableCatalog() {}

  public static List<TableDefinition> all(Tables t) {
    return List.of(rawEvents(t.rawEvents()), rejected(t.rejected()), rawCompanyChanges(t.rawCompanyChanges()),
        events(t.events()), eventCounts(t.eventCounts()), companies(t.companies()), companyChanges(t.companyChanges()),
        restatementLog(t.restatementLog()), auditChecks(t.auditChecks()));
  }

  public static TableDefinition rawEvents(TableName name) {
    return new TableDefinition(name, cols(
        "event_id", "INT", "company_id", "STRING", "amount", "DOUBLE", "event_ts", "TIMESTAMP",
        "source_file", "STRING", "arrival", "INT", "batch_id", "BIGINT", "ingest_ts", "TIMESTAMP"),
        List.of("days(event_ts)"),
        "Every parsed event as it arrived, duplicates and late ones included (no watermark)");
  }

  public static TableDefinition rejected(TableName name) {
    return new TableDefinition(name, cols(
        "dataset", "STRING", "line", "STRING", "reason", "STRING",
        "source_file", "STRING", "arrival", "INT", "batch_id", "BIGINT", "ingest_ts", "TIMESTAMP"),
        List.of("days(ingest_ts)"),
        "Quarantine: input lines that do not parse or miss required fields, with the reason");
  }

  public static TableDefinition rawCompanyChanges(TableName name) {
    return new TableDefinition(name, cols(
        "company_id", "STRING", "name", "STRING", "tier", "STRING", "change_ts", "TIMESTAMP", "deleted", "BOOLEAN",
        "source_file", "STRING", "arrival", "INT", "batch_id", "BIGINT", "ingest_ts", "TIMESTAMP"),
        List.of("days(change_ts)"),
        "Every parsed company change as it arrived, late and repeated ones included (no watermark)");
  }

  public static TableDefinition companyChanges(TableName name) {
    return new TableDefinition(name, cols(
        "company_id", "STRING", "name", "STRING", "tier", "STRING", "change_ts", "TIMESTAMP", "deleted", "BOOLEAN"),
        List.of("bucket(16, company_id)"),
        "The company changes applied to the SCD2 dimension, once each; its history is rebuilt from them");
  }

  public static TableDefinition events(TableName name) {
    return new TableDefinition(name, cols(
        "event_id", "INT", "company_id", "STRING", "amount", "DOUBLE", "event_ts", "TIMESTAMP"),
        List.of("days(event_ts)"),
        "Events deduplicated on event_id within a 30-minute watermark");
  }

  public static TableDefinition eventCounts(TableName name) {
    return new TableDefinition(name, cols(
        "company_id", "STRING", "w_start", "TIMESTAMP", "n", "BIGINT"),
        List.of("days(w_start)"),
        "Events per company and 5-minute event-time window, appended when the window finalizes");
  }

  public static TableDefinition companies(TableName name) {
    return new TableDefinition(name, cols(
        "company_id", "STRING", "name", "STRING", "tier", "STRING",
        "valid_from", "TIMESTAMP", "valid_to", "TIMESTAMP", "is_current", "BOOLEAN"),
        List.of(),
        "Company dimension, SCD2: one open version per company, history kept");
  }

  public static TableDefinition restatementLog(TableName name) {
    return new TableDefinition(name, cols(
        "run_id", "STRING", "branch", "STRING", "target_table", "STRING", "correction", "STRING",
        "key", "STRING", "old_value", "STRING", "new_value", "STRING", "corrected_at", "TIMESTAMP"),
        List.of("days(corrected_at)"),
        "One row per correction made by a restatement run");
  }

  public static TableDefinition auditChecks(TableName name) {
    return new TableDefinition(name, cols(
        "run_id", "STRING", "branch", "STRING", "check_name", "STRING", "target_table", "STRING",
        "passed", "BOOLEAN", "detail", "STRING", "checked_at", "TIMESTAMP"),
        List.of("days(checked_at)"),
        "Every check of every audit, with its result");
  }

  private static Map<String, String> cols(String... nameType) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < nameType.length; i += 2) {
      m.put(nameType[i], nameType[i + 1]);
    }
    return m;
  }
}
