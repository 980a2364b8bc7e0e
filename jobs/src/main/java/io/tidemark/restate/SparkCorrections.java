package io.tidemark.restate;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.Measure;
import io.tidemark.core.Occurrence;
import io.tidemark.lakehouse.spark.SparkAggregates;
import io.tidemark.lakehouse.spark.SparkRows;
import io.tidemark.lakehouse.spark.SparkWindows;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
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
 * ({@link CorrectionRules}: the window of a record and when it is final, the first occurrence, the changes the log
 * lacks, each tested equal to its plan here); only the corrections, few, come to the driver, where the windows'
 * measures are compared by the core's rule ({@link Aggregation#same}: floating sums within a relative 1e-9).
 */
final class SparkCorrections implements Corrections {
  /** How many rows the table holds for a key (a feed may have a column called old_rows). */
  private static final io.tidemark.core.Column HELD = io.tidemark.core.Column.of("__old_rows",
      io.tidemark.core.Type.BIGINT);
  private static final String OLD_ROWS = HELD.name();
  private static final String FRESH = "__fresh_";
  /** The columns a plan adds (named apart from a feed's, which may be called rank). */
  private static final String RANK = "__rank";
  private static final String SAME_ROWS = "__same_rows";
  private static final String OLD = "__old_";

  private final SparkSession spark;
  private final Pipeline pipeline;
  private final PinnedTables pinned;

  SparkCorrections(SparkSession spark, Pipeline pipeline, PinnedTables pinned) {
    this.spark = spark;
    this.pipeline = pipeline;
    this.pinned = pinned;
  }

  /** Worked out in Spark, collected: the corrections are few even when their inputs are many. */
  @Override
  public CorrectionSet between(Marks before, Marks now) {
    Work work = new Work(before, now);
    try {
      List<CorrectionSet.WindowFix> windows = new ArrayList<>();
      List<CorrectionSet.RecordFix> records = new ArrayList<>();
      List<CorrectionSet.ChangeFix> changes = new ArrayList<>();
      for (FactFeed f : pipeline.facts()) {
        FeedSchema declared = FeedDeclarations.of(RunContext.table(pinned, f.raw().table()), f.schema());
        for (Aggregate a : f.aggregates()) {
          windows.addAll(work.windows(f, declared, a));
        }
        for (Row r : work.records(f, declared).collectAsList()) {
          Fields row = SparkRows.fields(r);
          records.add(new CorrectionSet.RecordFix(f.name(), declared.keyOf(row),
              row.values(declared.columns().columns()), row.bigint(HELD)));
        }
      }
      for (DimensionFeed d : pipeline.dimensions()) {
        DimensionSchema declared = FeedDeclarations.of(RunContext.table(pinned, d.raw().table()), d.dimension());
        work.changes(d, declared).collectAsList().forEach(r -> changes.add(new CorrectionSet.ChangeFix(d.name(),
            declared.change(SparkRows.fields(r)))));
      }
      return new CorrectionSet(windows, records, changes);
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

  /** The order that picks a key's first occurrence ({@link Occurrence#firstFirst}), in Spark. */
  static WindowSpec firstOccurrence(FeedSchema feed) {
    List<Column> order = new ArrayList<>(List.of(col(Ingest.BATCH_ID.name()), col(Ingest.SOURCE_FILE.name()),
        col(Ingest.INGEST_TS.name())));
    Occurrence.orderedBy(feed).forEach(c -> order.add(col(c.name())));
    return Window.partitionBy(names(feed.key())).orderBy(order.toArray(new Column[0]));
  }

  /** The candidates' changes final under {@code watermark}, normalized, once each ({@link CorrectionRules#lateChanges}). */
  static Dataset<Row> finalChanges(Dataset<Row> candidates, Instant watermark, DimensionSchema d) {
    return SparkScd2History.normalize(candidates, d)
        .where(col(d.changeTime().name()).leq(lit(Timestamp.from(watermark))))
        .distinct();
  }

  private static Column[] names(List<io.tidemark.core.Column> columns) {
    return columns.stream().map(c -> col(c.name())).toArray(Column[]::new);
  }

  private static String[] strings(List<io.tidemark.core.Column> columns) {
    return columns.stream().map(io.tidemark.core.Column::name).toArray(String[]::new);
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

    /** The raw rows the archive got after the last run's snapshot, up to this run's; all of them without a start. */
    private Dataset<Row> appended(TableName raw) {
      Optional<Long> from = before.snapshot(raw.toString());
      Optional<Long> to = now.snapshot(raw.toString());
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

    /** Raw rows, as of this run's snapshot, with {@code time} in (after, upTo]; none when there is no upper bound. */
    private Dataset<Row> between(TableName raw, String time, Optional<Instant> after, Optional<Instant> upTo) {
      Optional<Long> snapshot = now.snapshot(raw.toString());
      if (snapshot.isEmpty() || upTo.isEmpty()) {
        return spark.table(at(raw)).limit(0);
      }
      Column c = col(time).leq(lit(Timestamp.from(upTo.get())));
      if (after.isPresent()) {
        c = c.and(col(time).gt(lit(Timestamp.from(after.get()))));
      }
      return asOf(raw, snapshot.get()).where(c);
    }

    /**
     * Finalized windows of an aggregate whose measures differ from the raw archive's: the candidates (windows of
     * appended or newly final rows) recomputed from every raw row in them, joined with the rows the table holds for
     * them; compared on the driver.
     */
    List<CorrectionSet.WindowFix> windows(FactFeed f, FeedSchema declared, Aggregate a) {
      Optional<Instant> watermark = now.watermark(a.name());
      if (watermark.isEmpty()) {
        return List.of();
      }
      Aggregation rule = a.rule();
      Duration size = rule.windows().size();
      Instant w = watermark.get();
      TableName raw = f.raw().table();
      String time = declared.eventTime().name();
      String start = rule.windowStart().name();
      Column[] group = names(rule.groupBy());
      List<Column> keyColumns = new ArrayList<>(List.of(group));
      keyColumns.add(col(start));
      String[] key = new String[rule.groupBy().size() + 1];
      for (int i = 0; i < rule.groupBy().size(); i++) {
        key[i] = rule.groupBy().get(i).name();
      }
      key[key.length - 1] = start;
      Optional<Instant> afterWindows = before.watermark(a.name()).map(p -> p.minus(size));
      List<Column> read = new ArrayList<>(List.of(group));
      read.add(col(time));
      Column noNullGroup = lit(true);
      for (io.tidemark.core.Column g : rule.groupBy()) {
        noNullGroup = noNullGroup.and(col(g.name()).isNotNull());
      }
      Dataset<Row> candidates = appended(raw).select(read.toArray(new Column[0]))
          .union(between(raw, time, afterWindows, Optional.of(w)).select(read.toArray(new Column[0])))
          .where(noNullGroup)
          .withColumn(start, windowStart(col(time), size))
          .where(isFinal(col(start), size, w))
          .select(keyColumns.toArray(new Column[0])).distinct()
          .persist(StorageLevel.MEMORY_AND_DISK());
      cached.add(candidates);
      Row range = candidates.agg(org.apache.spark.sql.functions.min(start), org.apache.spark.sql.functions.max(start))
          .first();
      if (range.isNullAt(0)) {
        return List.of();
      }
      Column inRange = col(time).geq(lit(range.getTimestamp(0)))
          .and(col(time).lt(lit(new Timestamp(range.getTimestamp(1).getTime() + size.toMillis()))));
      Column[] measures = SparkAggregates.measures(rule);
      List<Column> freshOut = new ArrayList<>(keyColumns);
      rule.measures().forEach(m -> freshOut.add(col(m.name()).as(FRESH + m.name())));
      Dataset<Row> fresh = asOf(raw, now.snapshot(raw.toString()).get()).where(inRange)
          .withColumn(start, windowStart(col(time), size))
          .join(candidates, key)
          .groupBy(keyColumns.toArray(new Column[0]))
          .agg(measures[0], java.util.Arrays.copyOfRange(measures, 1, measures.length))
          .select(freshOut.toArray(new Column[0]));
      List<Column> heldOut = new ArrayList<>(keyColumns);
      rule.measures().forEach(m -> heldOut.add(col(m.name()).as(OLD + m.name())));
      heldOut.add(lit(true).as("__held"));
      Dataset<Row> held = spark.table(at(a.table())).join(candidates, key).select(heldOut.toArray(new Column[0]));
      List<CorrectionSet.WindowFix> out = new ArrayList<>();
      for (Row r : fresh.join(held, key, "left").collectAsList()) {
        Fields row = SparkRows.fields(r);
        Aggregation.Key k = rule.keyOfOutput(row);
        List<Object> freshValues = new ArrayList<>();
        List<Object> oldValues = new ArrayList<>();
        for (Measure m : rule.measures()) {
          freshValues.add(row.get(FRESH + m.name()));
          oldValues.add(row.get(OLD + m.name()));
        }
        boolean wasHeld = Boolean.TRUE.equals(row.get("__held"));
        if (!wasHeld) {
          out.add(new CorrectionSet.WindowFix(a.name(), k.group(), k.start(), null, freshValues));
        } else if (!rule.same(oldValues, freshValues)) {
          out.add(new CorrectionSet.WindowFix(a.name(), k.group(), k.start(), oldValues, freshValues));
        }
      }
      return out;
    }

    /**
     * Final keys of a fact feed whose rows in the deduplicated table are not exactly their first occurrence in the raw
     * archive: the first occurrence (every column, promoted ones too) and how many rows the table holds for the key
     * (0: the dedup dropped it as late; more than 1: repeats got through).
     */
    Dataset<Row> records(FactFeed f, FeedSchema declared) {
      Optional<Instant> watermark = now.watermark(f.dedup().stream());
      List<io.tidemark.core.Column> out = new ArrayList<>(declared.columns().columns());
      out.add(HELD);
      if (watermark.isEmpty()) {
        return empty(out);
      }
      Instant w = watermark.get();
      TableName raw = f.raw().table();
      String time = declared.eventTime().name();
      List<Column> keyAndTime = new ArrayList<>(List.of(names(declared.key())));
      keyAndTime.add(col(time));
      Dataset<Row> candidates = appended(raw).select(keyAndTime.toArray(new Column[0]))
          .union(between(raw, time, before.watermark(f.dedup().stream()), Optional.of(w))
              .select(keyAndTime.toArray(new Column[0])))
          .persist(StorageLevel.MEMORY_AND_DISK());
      cached.add(candidates);
      Row range = candidates.agg(org.apache.spark.sql.functions.min(time), org.apache.spark.sql.functions.max(time))
          .first();
      if (range.isNullAt(0)) {
        return empty(out);
      }
      Column inRange = col(time).geq(lit(Timestamp.from(range.getTimestamp(0).toInstant()
              .minus(CorrectionRules.DUPLICATE_SPREAD))))
          .and(col(time).leq(lit(Timestamp.from(range.getTimestamp(1).toInstant()
              .plus(CorrectionRules.DUPLICATE_SPREAD)))));
      String[] key = strings(declared.key());
      Dataset<Row> keys = candidates.select(names(declared.key())).distinct();
      Dataset<Row> first = asOf(raw, now.snapshot(raw.toString()).get()).where(inRange)
          .join(keys, key)
          .withColumn(RANK, row_number().over(firstOccurrence(f.schema())))
          .where(col(RANK).equalTo(1))
          .where(col(time).leq(lit(Timestamp.from(w))))
          .select(SparkRows.columns(declared.columns()));
      Dataset<Row> current = spark.table(at(f.dedupTable())).where(inRange).join(keys, key);
      Dataset<Row> held = current.groupBy(names(declared.key())).agg(count(lit(1)).as(OLD_ROWS));
      Column alike = null;
      // the table's rows against the first occurrence in the feed's columns as the file declares them, as on the driver
      for (io.tidemark.core.Column c : f.schema().columns().columns()) {
        Column eq = current.col(c.name()).eqNullSafe(first.col(c.name()));
        alike = alike == null ? eq : alike.and(eq);
      }
      Column[] currentKey = declared.key().stream().map(c -> current.col(c.name())).toArray(Column[]::new);
      Dataset<Row> same = current.join(first, alike).groupBy(currentKey).agg(count(lit(1)).as(SAME_ROWS));
      return first.join(held, key, "left").join(same, key, "left")
          .na().fill(0L, new String[] {OLD_ROWS, SAME_ROWS})
          .where(col(OLD_ROWS).notEqual(1).or(col(SAME_ROWS).notEqual(1)))
          .select(SparkRows.columns(new io.tidemark.core.Schema(out)));
    }

    private Dataset<Row> empty(List<io.tidemark.core.Column> columns) {
      return spark.createDataFrame(List.of(), SparkRows.struct(new io.tidemark.core.Schema(columns)));
    }

    /** Final changes of a dimension in its raw archive that the SCD2 stream never applied (normalized). */
    Dataset<Row> changes(DimensionFeed d, DimensionSchema declared) {
      Optional<Instant> watermark = now.watermark(d.stream());
      TableName raw = d.raw().table();
      if (watermark.isEmpty()) {
        return SparkScd2History.normalize(spark.table(at(raw)).limit(0), declared);
      }
      Instant w = watermark.get();
      Dataset<Row> candidates = appended(raw).unionByName(between(raw, declared.changeTime().name(),
          before.watermark(d.stream()), Optional.of(w)));
      return Scd2ChangeLog.unlogged(finalChanges(candidates, w, declared), at(d.changes()), declared);
    }
  }
}
