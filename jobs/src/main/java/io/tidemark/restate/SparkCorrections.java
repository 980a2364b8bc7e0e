package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CorrectionPlan;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.CorrectionSet.EventFix;
import io.tidemark.core.CorrectionSet.WindowFix;
import io.tidemark.core.Events;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.RestatementRecords;
import io.tidemark.core.Schema;
import io.tidemark.core.WindowCounts;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.spark.SparkWindows;
import io.tidemark.stream.Scd2ChangeLog;
import io.tidemark.stream.SparkScd2History;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.storage.StorageLevel;

/**
 * The corrections worked out in Spark, for plans whose inputs are too many rows for the driver: candidates read from
 * the raw archives and the tables as the plan pinned them, joined and aggregated in Spark by the core's rules
 * ({@link CorrectionRules}: the window of an event and when it is final, the first occurrence, the changes the log
 * lacks, each tested equal to its plan here); only the corrections, few, come to the driver.
 */
final class SparkCorrections implements Corrections {
  private static final String OLD_N = RestatementRecords.OLD_N.name();
  private static final String NEW_N = RestatementRecords.NEW_N.name();
  private static final String OLD_ROWS = RestatementRecords.OLD_ROWS.name();
  private static final String COMPANY = Events.COMPANY_ID.name();
  private static final String EVENT_ID = Events.EVENT_ID.name();
  private static final String EVENT_TS = Events.EVENT_TS.name();
  private static final String W_START = WindowCounts.W_START.name();

  private final SparkSession spark;
  private final Tables tables;
  private final PinnedTables pinned;
  private final Duration window;
  /** The fields promoted into the feeds as the raw archives at the plan's commit declare them. */
  private final CorrectionPlan.Promoted promoted;

  SparkCorrections(SparkSession spark, Tables tables, PinnedTables pinned, Duration window) {
    this.spark = spark;
    this.tables = tables;
    this.pinned = pinned;
    this.window = window;
    this.promoted = PlannedCorrections.promoted(pinned, tables);
  }

  /** Worked out in Spark, collected: the corrections are few even when their inputs are many. */
  @Override
  public CorrectionSet between(Marks before, Marks now) {
    Work work = new Work(before, now);
    try {
      List<WindowFix> windows = new ArrayList<>();
      for (Row r : work.counts().collectAsList()) {
        Fields f = SparkRows.fields(r);
        windows.add(new WindowFix(f.string(WindowCounts.COMPANY_ID), f.instant(WindowCounts.W_START),
            f.bigint(RestatementRecords.OLD_N), f.bigint(RestatementRecords.NEW_N)));
      }
      List<EventFix> events = new ArrayList<>();
      for (Row r : work.dedup().collectAsList()) {
        Fields f = SparkRows.fields(r);
        events.add(new EventFix(f.integer(Events.EVENT_ID), f.string(Events.COMPANY_ID), f.number(Events.AMOUNT),
            f.instant(Events.EVENT_TS), f.bigint(RestatementRecords.OLD_ROWS), f.values(promoted.events())));
      }
      List<CompanyChange> changes = work.companyChanges().collectAsList().stream()
          .map(r -> CompanyChange.of(SparkRows.fields(r), promoted.changes())).toList();
      return new CorrectionSet(windows, events, changes);
    } finally {
      work.cached.forEach(Dataset::unpersist);
    }
  }

  /**
   * The start of the window an event time falls in ({@link io.tidemark.core.Windows#start}), in Spark: in
   * microseconds, as the stream's {@code window()} floors them (whole seconds floored a time before 1970 with a
   * fraction of a second into the next window).
   */
  static Column windowStart(Column ts, Duration window) {
    return SparkWindows.start(ts, window);
  }

  /** Whether the window starting at {@code start} is final under {@code watermark} ({@link io.tidemark.core.Windows#isFinal}). */
  static Column isFinal(Column start, Duration window, Instant watermark) {
    return SparkWindows.isFinal(start, window, watermark);
  }

  /** The order that picks an event's first occurrence ({@link CorrectionRules#FIRST_OCCURRENCE}), in Spark. */
  static WindowSpec firstOccurrence() {
    return Window.partitionBy(EVENT_ID).orderBy(col(Ingest.BATCH_ID.name()), col(Ingest.SOURCE_FILE.name()),
        col(Ingest.INGEST_TS.name()), col(COMPANY), col(Events.AMOUNT.name()), col(EVENT_TS));
  }

  /** The candidates' changes final under {@code watermark}, normalized, once each ({@link CorrectionRules#lateChanges}). */
  static Dataset<Row> finalChanges(Dataset<Row> candidates, Instant watermark) {
    return finalChanges(candidates, watermark, CompanyChanges.FEED);
  }

  /** The same for the companies as declared at the plan's commit (a promoted attribute is part of a change). */
  static Dataset<Row> finalChanges(Dataset<Row> candidates, Instant watermark, FeedSchema companies) {
    return SparkScd2History.normalize(candidates, companies)
        .where(col(CompanyChanges.CHANGE_TS.name()).leq(lit(Timestamp.from(watermark))))
        .distinct();
  }

  /** One plan's work between two marks; what it cached is dropped when the corrections are collected. */
  private final class Work {
    private final Marks before;
    private final Marks now;
    private final List<Dataset<Row>> cached = new ArrayList<>();

    Work(Marks before, Marks now) {
      this.before = before;
      this.now = now;
    }

    /** The table as the plan pinned it. */
    private String at(TableName t) {
      return pinned.sql(t);
    }

    /** The raw rows the archive got after {@code from}, up to {@code to}; all of them without a start. */
    private Dataset<Row> appended(TableName raw, Optional<Long> from, Optional<Long> to) {
      if (to.isEmpty()) {
        return spark.table(at(raw)).limit(0);
      }
      if (from.isEmpty() || from.equals(to)) {
        return from.equals(to) ? spark.table(at(raw)).limit(0) : asOf(raw, to.get());
      }
      return spark.read().format("iceberg").option("start-snapshot-id", from.get())
          .option("end-snapshot-id", to.get()).load("nessie." + raw);
    }

    private Dataset<Row> asOf(TableName raw, long snapshot) {
      return spark.sql("SELECT * FROM " + at(raw) + " VERSION AS OF " + snapshot);
    }

    /** Raw rows, as of this run's snapshot, with event time in (after, upTo]; none when there is no upper bound. */
    private Dataset<Row> between(TableName raw, Optional<Long> snapshot, String timeColumn, Optional<Instant> after,
                                 Optional<Instant> upTo) {
      if (snapshot.isEmpty() || upTo.isEmpty()) {
        return spark.table(at(raw)).limit(0);
      }
      Column c = col(timeColumn).leq(lit(Timestamp.from(upTo.get())));
      if (after.isPresent()) {
        c = c.and(col(timeColumn).gt(lit(Timestamp.from(after.get()))));
      }
      return asOf(raw, snapshot.get()).where(c);
    }

    /**
     * Finalized windows whose count differs from the raw archive's: company, window start, the old count (null for a
     * window the stream never wrote) and the new one. The stream's count is of every valid event line, repeats
     * included, so that is what the raw archive is counted for.
     */
    Dataset<Row> counts() {
      if (now.counts().isEmpty()) {
        return emptyCounts();
      }
      Instant w = now.counts().get();
      Optional<Instant> afterWindows = before.counts().map(p -> p.minus(window));
      Dataset<Row> candidates = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents())
          .select(COMPANY, EVENT_TS)
          .union(between(tables.rawEvents(), now.rawEvents(), EVENT_TS, afterWindows, Optional.of(w))
              .select(COMPANY, EVENT_TS))
          .withColumn(W_START, windowStart(col(EVENT_TS), window))
          .where(isFinal(col(W_START), window, w))
          .select(COMPANY, W_START).distinct()
          .persist(StorageLevel.MEMORY_AND_DISK());
      cached.add(candidates);
      Row range = candidates.agg(org.apache.spark.sql.functions.min(W_START),
          org.apache.spark.sql.functions.max(W_START)).first();
      if (range.isNullAt(0)) {
        candidates.unpersist();
        return emptyCounts();
      }
      Column inRange = col(EVENT_TS).geq(lit(range.getTimestamp(0)))
          .and(col(EVENT_TS).lt(lit(new Timestamp(range.getTimestamp(1).getTime() + window.toMillis()))));
      Dataset<Row> raw = asOf(tables.rawEvents(), now.rawEvents().get()).where(inRange)
          .withColumn(W_START, windowStart(col(EVENT_TS), window))
          .join(candidates, new String[] {COMPANY, W_START})
          .groupBy(COMPANY, W_START).agg(count(lit(1)).as(NEW_N));
      Dataset<Row> current = spark.table(at(tables.eventCounts()))
          .join(candidates, new String[] {COMPANY, W_START})
          .select(col(COMPANY), col(W_START), col(WindowCounts.N.name()).as(OLD_N));
      return raw.join(current, new String[] {COMPANY, W_START}, "left")
          .where(col(OLD_N).isNull().or(col(OLD_N).notEqual(col(NEW_N))))
          .select(COMPANY, W_START, OLD_N, NEW_N);
    }

    private Dataset<Row> emptyCounts() {
      return spark.createDataFrame(List.of(), SparkRows.struct(Schema.of(WindowCounts.COMPANY_ID,
          WindowCounts.W_START, RestatementRecords.OLD_N, RestatementRecords.NEW_N)));
    }

    /**
     * Final event ids whose rows in the dedup table are not exactly their first occurrence in the raw archive: the
     * event of the first occurrence and how many rows the table holds for the id (0: the dedup dropped it as late;
     * more than 1: repeats got through).
     */
    Dataset<Row> dedup() {
      if (now.dedup().isEmpty()) {
        return emptyDedup();
      }
      Instant w = now.dedup().get();
      Dataset<Row> candidates = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents())
          .select(EVENT_ID, EVENT_TS)
          .union(between(tables.rawEvents(), now.rawEvents(), EVENT_TS, before.dedup(), Optional.of(w))
              .select(EVENT_ID, EVENT_TS))
          .persist(StorageLevel.MEMORY_AND_DISK());
      cached.add(candidates);
      Row range = candidates.agg(org.apache.spark.sql.functions.min(EVENT_TS),
          org.apache.spark.sql.functions.max(EVENT_TS)).first();
      if (range.isNullAt(0)) {
        candidates.unpersist();
        return emptyDedup();
      }
      Column inRange = col(EVENT_TS).geq(lit(Timestamp.from(range.getTimestamp(0).toInstant()
              .minus(CorrectionRules.DUPLICATE_SPREAD))))
          .and(col(EVENT_TS).leq(lit(Timestamp.from(range.getTimestamp(1).toInstant()
              .plus(CorrectionRules.DUPLICATE_SPREAD)))));
      Dataset<Row> ids = candidates.select(EVENT_ID).distinct();
      Dataset<Row> first = asOf(tables.rawEvents(), now.rawEvents().get()).where(inRange)
          .join(ids, EVENT_ID)
          .withColumn("rank", row_number().over(firstOccurrence()))
          .where(col("rank").equalTo(1))
          .where(col(EVENT_TS).leq(lit(Timestamp.from(w))))
          .select(SparkRows.columns(Events.FEED.columns().plus(promoted.events())));
      Dataset<Row> current = spark.table(at(tables.events())).where(inRange).join(ids, EVENT_ID);
      Dataset<Row> held = current.groupBy(EVENT_ID).agg(count(lit(1)).as(OLD_ROWS));
      Column alike = null;
      // the events table's rows against the first occurrence in the static fields, as on the driver
      for (String c : Events.FEED.columns().names()) {
        Column eq = current.col(c).eqNullSafe(first.col(c));
        alike = alike == null ? eq : alike.and(eq);
      }
      Dataset<Row> same = current.join(first, alike).groupBy(current.col(EVENT_ID))
          .agg(count(lit(1)).as("same_rows"));
      return first.join(held, new String[] {EVENT_ID}, "left").join(same, new String[] {EVENT_ID}, "left")
          .na().fill(0L, new String[] {OLD_ROWS, "same_rows"})
          .where(col(OLD_ROWS).notEqual(1).or(col("same_rows").notEqual(1)))
          .select(SparkRows.columns(Events.FEED.columns().plus(promoted.events())
              .plus(RestatementRecords.OLD_ROWS)));
    }

    private Dataset<Row> emptyDedup() {
      return spark.createDataFrame(List.of(), SparkRows.struct(Events.FEED.columns().plus(promoted.events())
          .plus(RestatementRecords.OLD_ROWS)));
    }

    /** Final company changes in the raw archive that the SCD2 stream never applied (normalized). */
    Dataset<Row> companyChanges() {
      if (now.scd2().isEmpty()) {
        return SparkScd2History.normalize(spark.table(at(tables.rawCompanyChanges())).limit(0), promoted.companies());
      }
      Instant w = now.scd2().get();
      String changeTs = CompanyChanges.CHANGE_TS.name();
      Dataset<Row> candidates = appended(tables.rawCompanyChanges(), before.rawChanges(), now.rawChanges())
          .unionByName(between(tables.rawCompanyChanges(), now.rawChanges(), changeTs, before.scd2(),
              Optional.of(w)));
      return Scd2ChangeLog.unlogged(finalChanges(candidates, w, promoted.companies()), at(tables.companyChanges()));
    }
  }
}
