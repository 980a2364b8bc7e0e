package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.timestamp_seconds;
import static org.apache.spark.sql.functions.unix_timestamp;

import io.tidemark.config.TableName;
import io.tidemark.config.Tables;
import io.tidemark.lakehouse.Schemas;
import io.tidemark.restate.CorrectionSet.EventFix;
import io.tidemark.restate.CorrectionSet.LateChange;
import io.tidemark.restate.CorrectionSet.WindowFix;
import io.tidemark.stream.Scd2History;
import io.tidemark.stream.Scd2ChangeLog;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The corrections worked out in Spark, for plans whose inputs are too many rows for the driver
 * ({@link DriverCorrections}, whose rules these are, to the row): candidates read from the raw archives and the
 * tables as the plan pinned them, joined and aggregated in Spark; only the corrections, few, come to the driver.
 */
final class SparkCorrections {
  private static final Duration DUPLICATE_SPREAD = io.tidemark.audit.RestatementAudit.DUPLICATE_SPREAD;
  /** An event to write as its first occurrence, and how many rows the events table holds for its id. */
  private static final StructType DEDUP_CORRECTION = Schemas.EVENT.add("old_rows", "BIGINT");

  private final SparkSession spark;
  private final Tables tables;
  private final PinnedTables pinned;
  private final Marks before;
  private final Marks now;
  private final Duration window;
  private final List<Dataset<Row>> cached = new ArrayList<>();

  SparkCorrections(SparkSession spark, Tables tables, PinnedTables pinned, Marks before, Marks now, Duration window) {
    this.spark = spark;
    this.tables = tables;
    this.pinned = pinned;
    this.before = before;
    this.now = now;
    this.window = window;
  }

  /** Worked out in Spark, collected: the corrections are few even when their inputs are many. */
  CorrectionSet compute() {
    try {
      List<WindowFix> windows = new ArrayList<>();
      for (Row r : counts().collectAsList()) {
        windows.add(new WindowFix(r.getString(0), r.getTimestamp(1).toInstant(), r.isNullAt(2) ? null : r.getLong(2),
            r.getLong(3)));
      }
      List<EventFix> events = new ArrayList<>();
      for (Row r : dedup().collectAsList()) {
        events.add(new EventFix(r.<Integer>getAs("event_id"), r.getAs("company_id"), r.<Double>getAs("amount"),
            r.<java.sql.Timestamp>getAs("event_ts").toInstant(), r.<Long>getAs("old_rows")));
      }
      List<LateChange> changes = new ArrayList<>();
      for (Row r : companyChanges().collectAsList()) {
        changes.add(new LateChange(r.getAs("company_id"), r.getAs("name"), r.getAs("tier"),
            r.<java.sql.Timestamp>getAs("change_ts").toInstant(), r.<Boolean>getAs("deleted")));
      }
      windows.sort(Comparator.comparing(WindowFix::wStart).thenComparing(WindowFix::companyId));
      events.sort(Comparator.comparingInt(EventFix::eventId));
      changes.sort(Comparator.comparing(LateChange::companyId).thenComparing(LateChange::changeTs));
      return new CorrectionSet(windows, events, changes);
    } finally {
      cached.forEach(Dataset::unpersist);
      cached.clear();
    }
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
    return spark.read().format("iceberg").option("start-snapshot-id", from.get()).option("end-snapshot-id", to.get())
        .load("nessie." + raw);
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
    Column c = col(timeColumn).leq(lit(java.sql.Timestamp.from(upTo.get())));
    if (after.isPresent()) {
      c = c.and(col(timeColumn).gt(lit(java.sql.Timestamp.from(after.get()))));
    }
    return asOf(raw, snapshot.get()).where(c);
  }

  private Column windowStart(Column ts) {
    long w = window.toSeconds();
    return timestamp_seconds(floor(unix_timestamp(ts).divide(w)).multiply(w));
  }

  /**
   * Finalized windows whose count differs from the raw archive's: {@code company_id, w_start, old_n, new_n}
   * (old_n null for a window the stream never wrote). The stream's count is of every valid event line, repeats
   * included, so that is what the raw archive is counted for.
   */
  private Dataset<Row> counts() {
    if (now.counts().isEmpty()) {
      return emptyCounts();
    }
    Instant w = now.counts().get();
    Optional<Instant> afterWindows = before.counts().map(p -> p.minus(window));
    Dataset<Row> candidates = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents())
        .select("company_id", "event_ts")
        .union(between(tables.rawEvents(), now.rawEvents(), "event_ts", afterWindows, Optional.of(w))
            .select("company_id", "event_ts"))
        .withColumn("w_start", windowStart(col("event_ts")))
        .where(unix_timestamp(col("w_start")).plus(window.toSeconds()).multiply(1000L).leq(w.toEpochMilli()))
        .select("company_id", "w_start").distinct()
        .persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(candidates);
    Row range = candidates.agg(org.apache.spark.sql.functions.min("w_start"), org.apache.spark.sql.functions.max("w_start"))
        .first();
    if (range.isNullAt(0)) {
      candidates.unpersist();
      return emptyCounts();
    }
    Column inRange = col("event_ts").geq(lit(range.getTimestamp(0)))
        .and(col("event_ts").lt(lit(new java.sql.Timestamp(range.getTimestamp(1).getTime() + window.toMillis()))));
    Dataset<Row> raw = asOf(tables.rawEvents(), now.rawEvents().get()).where(inRange)
        .withColumn("w_start", windowStart(col("event_ts")))
        .join(candidates, new String[] {"company_id", "w_start"})
        .groupBy("company_id", "w_start").agg(count(lit(1)).as("new_n"));
    Dataset<Row> current = spark.table(at(tables.eventCounts()))
        .join(candidates, new String[] {"company_id", "w_start"})
        .select(col("company_id"), col("w_start"), col("n").as("old_n"));
    return raw.join(current, new String[] {"company_id", "w_start"}, "left")
        .where(col("old_n").isNull().or(col("old_n").notEqual(col("new_n"))))
        .select("company_id", "w_start", "old_n", "new_n");
  }

  private Dataset<Row> emptyCounts() {
    return spark.sql("SELECT CAST(NULL AS STRING) company_id, CAST(NULL AS TIMESTAMP) w_start, "
        + "CAST(NULL AS BIGINT) old_n, CAST(NULL AS BIGINT) new_n").limit(0);
  }

  /**
   * Final event_ids whose rows in the dedup table are not exactly their first occurrence in the raw archive:
   * {@code event_id, company_id, amount, event_ts} of the first occurrence and {@code old_rows}, how many rows
   * the table holds for the id (0: the dedup dropped it as late; more than 1: repeats got through).
   */
  private Dataset<Row> dedup() {
    if (now.dedup().isEmpty()) {
      return emptyDedup();
    }
    Instant w = now.dedup().get();
    Dataset<Row> candidates = appended(tables.rawEvents(), before.rawEvents(), now.rawEvents())
        .select("event_id", "event_ts")
        .union(between(tables.rawEvents(), now.rawEvents(), "event_ts", before.dedup(), Optional.of(w))
            .select("event_id", "event_ts"))
        .persist(StorageLevel.MEMORY_AND_DISK());
    cached.add(candidates);
    Row range = candidates.agg(org.apache.spark.sql.functions.min("event_ts"),
        org.apache.spark.sql.functions.max("event_ts")).first();
    if (range.isNullAt(0)) {
      candidates.unpersist();
      return emptyDedup();
    }
    Column inRange = col("event_ts").geq(lit(java.sql.Timestamp.from(range.getTimestamp(0).toInstant()
            .minus(DUPLICATE_SPREAD))))
        .and(col("event_ts").leq(lit(java.sql.Timestamp.from(range.getTimestamp(1).toInstant().plus(DUPLICATE_SPREAD)))));
    Dataset<Row> ids = candidates.select("event_id").distinct();
    Dataset<Row> first = asOf(tables.rawEvents(), now.rawEvents().get()).where(inRange)
        .join(ids, "event_id")
        .withColumn("rank", row_number().over(Window.partitionBy("event_id")
            .orderBy(col("batch_id"), col("source_file"), col("ingest_ts"), col("company_id"), col("amount"),
                col("event_ts"))))
        .where(col("rank").equalTo(1))
        .where(col("event_ts").leq(lit(java.sql.Timestamp.from(w))))
        .select(Schemas.columns(Schemas.EVENT));
    Dataset<Row> current = spark.table(at(tables.events())).where(inRange).join(ids, "event_id");
    Dataset<Row> held = current.groupBy("event_id").agg(count(lit(1)).as("old_rows"));
    Column alike = null;
    for (String c : Schemas.EVENT.fieldNames()) {
      Column eq = current.col(c).eqNullSafe(first.col(c));
      alike = alike == null ? eq : alike.and(eq);
    }
    Dataset<Row> same = current.join(first, alike).groupBy(current.col("event_id"))
        .agg(count(lit(1)).as("same_rows"));
    return first.join(held, new String[] {"event_id"}, "left").join(same, new String[] {"event_id"}, "left")
        .na().fill(0L, new String[] {"old_rows", "same_rows"})
        .where(col("old_rows").notEqual(1).or(col("same_rows").notEqual(1)))
        .select(Schemas.columns(DEDUP_CORRECTION));
  }

  private Dataset<Row> emptyDedup() {
    return spark.createDataFrame(List.of(), DEDUP_CORRECTION);
  }

  /** Final company changes in the raw archive that the SCD2 stream never applied (normalized). */
  private Dataset<Row> companyChanges() {
    if (now.scd2().isEmpty()) {
      return Scd2History.normalize(spark.table(at(tables.rawCompanyChanges())).limit(0));
    }
    Instant w = now.scd2().get();
    Dataset<Row> candidates = appended(tables.rawCompanyChanges(), before.rawChanges(), now.rawChanges())
        .unionByName(between(tables.rawCompanyChanges(), now.rawChanges(), "change_ts", before.scd2(), Optional.of(w)));
    Dataset<Row> late = Scd2History.normalize(candidates)
        .where(col("change_ts").leq(lit(java.sql.Timestamp.from(w))))
        .distinct();
    return Scd2ChangeLog.unlogged(late, at(tables.companyChanges()));
  }
}
