package io.tidemark.core;

import java.util.List;

/** The shape of every table of the pipeline, each built from the feeds it keeps ({@link Events}, {@link CompanyChanges}). */
public final class TableSchemas {
  public static final TableShape RAW_EVENTS = rawEvents(Events.FEED);

  public static final TableShape REJECTED = new TableShape(Quarantine.LINE_SCHEMA.plus(Ingest.SCHEMA),
      List.of(TableShape.days(Ingest.INGEST_TS)),
      "Quarantine: input lines that do not parse or miss required fields, with the reason");

  public static final TableShape RAW_COMPANY_CHANGES = rawCompanyChanges(CompanyChanges.FEED);

  public static final TableShape COMPANY_CHANGES = companyChanges(CompanyChanges.FEED);

  public static final TableShape EVENTS = events(Events.FEED);

  public static final TableShape EVENT_COUNTS = new TableShape(WindowCounts.SCHEMA,
      List.of(TableShape.days(WindowCounts.W_START)),
      "Events per company and 5-minute event-time window, appended when the window finalizes");

  public static final TableShape COMPANIES = companies(CompanyChanges.FEED);

  public static final TableShape RESTATEMENT_LOG = new TableShape(RestatementRecords.LOG,
      List.of(TableShape.days(RestatementRecords.CORRECTED_AT)),
      "One row per correction made by a restatement run");

  public static final TableShape RESTATEMENT_PLAN = new TableShape(RestatementRecords.PLAN, List.of(),
      "What each restatement planned to correct, written on its branch by its plan stage");

  public static final TableShape AUDIT_CHECKS = new TableShape(AuditRecords.CHECK.plus(AuditRecords.CHECKED_AT),
      List.of(TableShape.days(AuditRecords.CHECKED_AT)),
      "Every check of every audit, with its result");

  public static final TableShape STREAM_BATCHES = new TableShape(BatchColumns.SCHEMA,
      List.of(TableShape.days(BatchColumns.STARTED_AT)),
      "One row per micro-batch of every stream run: input, output, late rows, state, watermark, timings");

  private TableSchemas() {}

  // the tables that keep a feed's records, for the feed as declared when a job runs (promoted fields included)

  /** Every valid event line: its columns, what they do not hold ({@link Rescued}), then where it came from. */
  public static TableShape rawEvents(FeedSchema events) {
    return new TableShape(events.columns().plus(Rescued.DATA).plus(Ingest.SCHEMA),
        List.of(TableShape.days(Events.EVENT_TS)),
        "Every parsed event as it arrived, duplicates and late ones included (no watermark), with what its columns "
            + "do not hold in " + Rescued.DATA);
  }

  public static TableShape rawCompanyChanges(FeedSchema companies) {
    return new TableShape(companies.columns().plus(Rescued.DATA).plus(Ingest.SCHEMA),
        List.of(TableShape.days(CompanyChanges.CHANGE_TS)),
        "Every parsed company change as it arrived, late and repeated ones included (no watermark), with what its "
            + "columns do not hold in " + Rescued.DATA);
  }

  /** The dimension: a version holds every attribute of the feed, a promoted one too. */
  public static TableShape companies(FeedSchema companies) {
    return new TableShape(Dimension.version(companies), List.of(),
        "Company dimension, SCD2: one open version per company, history kept");
  }

  public static TableShape companyChanges(FeedSchema companies) {
    return new TableShape(companies.columns(), List.of(TableShape.bucket(16, CompanyChanges.COMPANY_ID)),
        "The company changes applied to the SCD2 dimension, once each; its history is rebuilt from them");
  }

  public static TableShape events(FeedSchema events) {
    return new TableShape(events.columns(), List.of(TableShape.days(Events.EVENT_TS)),
        "Events deduplicated on " + Events.FEED.key() + " within a 30-minute watermark");
  }
}
