package io.tidemark.lakehouse.tables;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.TableSchemas;
import io.tidemark.core.TableShape;
import java.util.List;

/** The definition of every tidemark table under the name it is given; the shapes come from the core's. */
public final class TableCatalog {
  private TableCatalog() {}

  public static List<TableDefinition> all(Tables t) {
    return List.of(rawEvents(t.rawEvents()), rejected(t.rejected()), rawCompanyChanges(t.rawCompanyChanges()),
        events(t.events()), eventCounts(t.eventCounts()), companies(t.companies()), companyChanges(t.companyChanges()),
        restatementLog(t.restatementLog()), restatementPlan(t.restatementPlan()), auditChecks(t.auditChecks()),
        streamBatches(t.streamBatches()));
  }

  private static TableDefinition of(TableName name, TableShape shape) {
    return new TableDefinition(name, shape);
  }

  public static TableDefinition rawEvents(TableName name) {
    return of(name, TableSchemas.RAW_EVENTS);
  }

  public static TableDefinition rejected(TableName name) {
    return of(name, TableSchemas.REJECTED);
  }

  public static TableDefinition rawCompanyChanges(TableName name) {
    return of(name, TableSchemas.RAW_COMPANY_CHANGES);
  }

  public static TableDefinition companyChanges(TableName name) {
    return of(name, TableSchemas.COMPANY_CHANGES);
  }

  public static TableDefinition events(TableName name) {
    return of(name, TableSchemas.EVENTS);
  }

  public static TableDefinition eventCounts(TableName name) {
    return of(name, TableSchemas.EVENT_COUNTS);
  }

  public static TableDefinition companies(TableName name) {
    return of(name, TableSchemas.COMPANIES);
  }

  // the same for a feed as declared when a job runs (its promoted fields too)

  public static TableDefinition rawEvents(TableName name, FeedSchema events) {
    return of(name, TableSchemas.rawEvents(events));
  }

  public static TableDefinition rawCompanyChanges(TableName name, FeedSchema companies) {
    return of(name, TableSchemas.rawCompanyChanges(companies));
  }

  public static TableDefinition events(TableName name, FeedSchema events) {
    return of(name, TableSchemas.events(events));
  }

  public static TableDefinition companies(TableName name, FeedSchema companies) {
    return of(name, TableSchemas.companies(companies));
  }

  public static TableDefinition companyChanges(TableName name, FeedSchema companies) {
    return of(name, TableSchemas.companyChanges(companies));
  }

  public static TableDefinition restatementLog(TableName name) {
    return of(name, TableSchemas.RESTATEMENT_LOG);
  }

  public static TableDefinition restatementPlan(TableName name) {
    return of(name, TableSchemas.RESTATEMENT_PLAN);
  }

  public static TableDefinition auditChecks(TableName name) {
    return of(name, TableSchemas.AUDIT_CHECKS);
  }

  public static TableDefinition streamBatches(TableName name) {
    return of(name, TableSchemas.STREAM_BATCHES);
  }
}
