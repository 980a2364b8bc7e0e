package io.tidemark.core;

/**
 * What one micro-batch of a raw archive found of one expectation in one arrival of its feed, as the expectations table
 * keeps it: a row per batch, arrival and expectation (of the version that judged the arrival), committed with the
 * batch's rows, exactly once. A row expectation's row counts the valid lines it judged and those that failed it, with
 * two of their keys (the least and the greatest); an arrival expectation's counts what {@code tidemark publish} bounds
 * over the whole arrival: the rows kept (rows), those with a null in the column (nulls), the valid lines dropped by row
 * expectations (dropped).
 */
public final class ExpectationColumns {
  public static final Column STREAM = Column.of("stream", Type.STRING);
  public static final Column FEED = Column.of("feed", Type.STRING);
  public static final Column BATCH_ID = Ingest.BATCH_ID;
  public static final Column ARRIVAL = Ingest.ARRIVAL;
  public static final Column EXPECTATION = Column.of("expectation", Type.STRING);
  /** condition (a row expectation), rows, nulls or dropped (an arrival expectation). */
  public static final Column KIND = Column.of("kind", Type.STRING);
  /** warn, drop or fail. */
  public static final Column ACTION = Column.of("action", Type.STRING);
  /** The version of the feed's expectations that judged the arrival (0: none). */
  public static final Column VERSION = Column.of("version", Type.INT);
  /** The condition, or the bound ({@code rows at least 1}, {@code nulls of company_id at most 5%}). */
  public static final Column RULE = Column.of("rule", Type.STRING);
  /** The rows looked at: the valid lines (condition, dropped), or the rows kept (rows, nulls). */
  public static final Column ROWS = Column.of("rows", Type.BIGINT);
  /** The rows that failed it: the condition false, a null, a line dropped; null for rows. */
  public static final Column VIOLATIONS = Column.of("violations", Type.BIGINT);
  /** Keys of rows that failed a condition: the least and the greatest of the batch ({@code event_id=17}). */
  public static final Column SAMPLE_KEYS = Column.of("sample_keys", Type.NAMES);
  public static final Column INGEST_TS = Ingest.INGEST_TS;

  public static final Schema SCHEMA = Schema.of(STREAM, FEED, BATCH_ID, ARRIVAL, EXPECTATION, KIND, ACTION, VERSION,
      RULE, ROWS, VIOLATIONS, SAMPLE_KEYS, INGEST_TS);

  /**
   * The record summed per arrival: feed, arrival, expectation, version, kind, action, rule, rows, violations (nulls
   * as 0) and the sample keys of the latest batch that had any; rows outside the landing layout (no arrival) left out.
   * What {@code tidemark check} prints and the report charts.
   */
  public static String perArrival(String tableSql) {
    String groups = String.join(", ", FEED.name(), ARRIVAL.name(), EXPECTATION.name(), VERSION.name(), KIND.name(),
        ACTION.name(), RULE.name());
    return "SELECT " + groups + ", sum(" + ROWS.name() + ") AS " + ROWS.name() + ", sum(coalesce(" + VIOLATIONS.name()
        + ", 0)) AS " + VIOLATIONS.name() + ", max_by(" + SAMPLE_KEYS.name() + ", CASE WHEN size(" + SAMPLE_KEYS.name()
        + ") > 0 THEN " + BATCH_ID.name() + " END) AS " + SAMPLE_KEYS.name() + " FROM " + tableSql + " WHERE "
        + ARRIVAL.name() + " IS NOT NULL GROUP BY " + groups + " ORDER BY " + String.join(", ", FEED.name(),
        EXPECTATION.name(), VERSION.name(), ARRIVAL.name());
  }

  private ExpectationColumns() {}
}
