package io.tidemark.core;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/** An event ({@link Events#FEED}): its company and amount may be missing, its id and time never. */
public record Event(int eventId, String companyId, Double amount, Instant eventTs) {
  public static Event of(Fields f) {
    return new Event(f.integer(Events.EVENT_ID), f.string(Events.COMPANY_ID), f.number(Events.AMOUNT),
        f.instant(Events.EVENT_TS));
  }

  /** The values in the order of {@link Events#FEED}'s columns. */
  public List<Object> values() {
    return Arrays.asList(eventId, companyId, amount, eventTs);
  }

  /**
   * The same event, column by column, as SQL's null-safe equality has it: a null equals a null, and amounts compare
   * as Spark compares doubles (-0.0 equals 0.0, NaN equals NaN).
   */
  public boolean sameAs(Event o) {
    return eventId == o.eventId && java.util.Objects.equals(companyId, o.companyId)
        && java.util.Objects.equals(eventTs, o.eventTs)
        && (amount == null ? o.amount == null : SqlOrder.sameDouble(amount, o.amount));
  }
}
