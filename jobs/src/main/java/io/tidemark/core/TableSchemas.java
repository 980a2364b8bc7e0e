package io.tidemark.core;

import java.time.Duration;
import java.util.List;

/** The shape of every table of a pipeline, each built from the declaration of what it keeps. */
public final class TableSchemas {
  public static final TableShape REJECTED = new TableShape(Quarantine.LINE_SCHEMA.plus(Ingest.SCHEMA),
      List.of(TableShape.days(Ingest.INGEST_TS)),
      "Quarantine: input lines that do not parse or miss required fields, with the reason");

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

  public static final TableShape EXPECTATIONS = new TableShape(ExpectationColumns.SCHEMA,
      List.of(TableShape.days(ExpectationColumns.INGEST_TS)),
      "What each micro-batch of a raw archive found of each expectation of its feed, per arrival");

  private TableSchemas() {}

  // the tables that keep a feed's records, for the feed as declared when a job runs (promoted fields included)

  /** Every valid line of a feed: its columns, what they do not hold ({@link Rescued}), then where it came from. */
  public static TableShape raw(FeedSchema feed) {
    return new TableShape(feed.columns().plus(Rescued.DATA).plus(Ingest.SCHEMA),
        List.of(TableShape.days(feed.eventTime())),
        "Every parsed " + feed.name() + " line as it arrived, repeats and late ones included (no watermark), with "
            + "what its columns do not hold in " + Rescued.DATA);
  }

  /** A fact feed deduplicated on its key. */
  public static TableShape deduplicated(FeedSchema feed, Duration watermark) {
    return new TableShape(feed.columns(), List.of(TableShape.days(feed.eventTime())),
        feed.name() + " deduplicated on " + feed.keyList() + " within a " + Times.show(watermark) + " watermark");
  }

  /** A windowed aggregate's windows, each appended once its watermark has passed its end. */
  public static TableShape aggregate(String feed, Aggregation a) {
    return new TableShape(a.schema(), List.of(TableShape.days(a.windowStart())),
        feed + " per " + String.join(", ", a.groupBy().stream().map(Column::name).toList()) + " and "
            + Times.show(a.windows().size()) + " event-time window, appended when the window finalizes");
  }

  /** An SCD2 dimension: a version holds every tracked attribute, a promoted one too. */
  public static TableShape dimension(DimensionSchema d) {
    return new TableShape(d.version(), List.of(),
        d.name() + " as SCD2: one open version per " + d.feed().keyList() + ", history kept");
  }

  /** The changes applied to an SCD2 dimension, once each; its history is rebuilt from them. */
  public static TableShape changeLog(DimensionSchema d) {
    return new TableShape(d.logged(), List.of(TableShape.bucket(16, d.key().get(0))),
        "The " + d.name() + " changes applied to the SCD2 dimension, once each; its history is rebuilt from them");
  }
}
