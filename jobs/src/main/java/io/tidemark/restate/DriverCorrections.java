package io.tidemark.restate;

import io.tidemark.config.TableName;
import io.tidemark.core.Aggregation;
import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.CorrectionRules;
import io.tidemark.core.CorrectionSet;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Fields;
import io.tidemark.core.Ingest;
import io.tidemark.core.Occurrence;
import io.tidemark.core.Schema;
import io.tidemark.core.Times;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.KeyFilters;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The corrections worked out on the driver, from the tables read with Iceberg's readers, for the few rows a
 * restatement of a few late records reads. A read past the budget stops with {@link DriverReads.TooManyRows}: the
 * plan hands the work to {@link SparkCorrections} then.
 */
final class DriverCorrections implements Corrections {
  private final PinnedTables at;
  private final Pipeline pipeline;
  private final long budget;

  /** {@code at}: the tables as the plan reads them; {@code budget}: rows it may read before Spark takes over. */
  DriverCorrections(PinnedTables at, Pipeline pipeline, long budget) {
    this.at = at;
    this.pipeline = pipeline;
    this.budget = budget;
  }

  @Override
  public CorrectionSet between(Marks before, Marks now) {
    return new Reading(before, now).corrections();
  }

  /** One plan's reads, counted against the budget; the rows each raw archive got since the last run read once. */
  private final class Reading {
    private final Marks before;
    private final Marks now;
    private long left = budget;
    private final Map<TableName, List<Fields>> appended = new HashMap<>();

    Reading(Marks before, Marks now) {
      this.before = before;
      this.now = now;
    }

    CorrectionSet corrections() {
      // what the archives got since the last restatement is read whole: too much of it, and Spark takes over at once
      long rows = 0;
      for (TableName raw : pipeline.rawTables()) {
        rows += appendedRows(raw);
      }
      if (rows > budget) {
        throw new DriverReads.TooManyRows(String.join(" and ", pipeline.rawTables().stream().map(TableName::toString)
            .toList()), budget);
      }
      List<CorrectionSet.WindowFix> windows = new ArrayList<>();
      List<CorrectionSet.RecordFix> records = new ArrayList<>();
      List<CorrectionSet.ChangeFix> changes = new ArrayList<>();
      for (FactFeed f : pipeline.facts()) {
        FeedSchema declared = FeedDeclarations.of(RunContext.table(at, f.raw().table()), f.schema());
        for (Aggregate a : f.aggregates()) {
          windows.addAll(windows(f, declared, a));
        }
        records.addAll(records(f, declared));
      }
      for (DimensionFeed d : pipeline.dimensions()) {
        DimensionSchema declared = FeedDeclarations.of(RunContext.table(at, d.raw().table()), d.dimension());
        changes(d, declared).forEach(c -> changes.add(new CorrectionSet.ChangeFix(d.name(), c)));
      }
      return new CorrectionSet(windows, records, changes);
    }

    private long appendedRows(TableName raw) {
      Optional<Long> from = before.snapshot(raw.toString());
      Optional<Long> to = now.snapshot(raw.toString());
      return to.isEmpty() || from.equals(to) ? 0 : DriverReads.rowsAppended(at.get(raw), from.orElse(null), to.get());
    }

    /** Rows of {@code columns}, counted against the budget. */
    private List<Fields> read(TableName t, long snapshot, Expression filter, Schema columns) {
      List<Fields> rows = DriverReads.read(at.get(t), snapshot, filter, columns.names(), false, left).stream()
          .map(IcebergFields::of).toList();
      left -= rows.size();
      return rows;
    }

    /** The raw rows the archive got after the last run's snapshot, up to this run's; all of them without a start. */
    private List<Fields> appended(TableName raw, Schema columns) {
      return appended.computeIfAbsent(raw, t -> {
        Optional<Long> from = before.snapshot(raw.toString());
        Optional<Long> to = now.snapshot(raw.toString());
        if (to.isEmpty() || from.equals(to)) {
          return List.of();
        }
        if (from.isEmpty()) {
          return read(raw, to.get(), Expressions.alwaysTrue(), columns);
        }
        List<Fields> rows = DriverReads.appended(at.get(raw), from.get(), to.get(), Expressions.alwaysTrue(),
            columns.names(), left).stream().map(IcebergFields::of).toList();
        left -= rows.size();
        return rows;
      });
    }

    /** Raw rows, as of this run's snapshot, with {@code time} in (after, upTo]; none without an upper bound. */
    private List<Fields> between(TableName raw, String time, Optional<Instant> after, Optional<Instant> upTo,
                                 Schema columns) {
      Optional<Long> snapshot = now.snapshot(raw.toString());
      if (snapshot.isEmpty() || upTo.isEmpty() || after.isPresent() && !upTo.get().isAfter(after.get())) {
        return List.of();
      }
      Expression range = Expressions.lessThanOrEqual(time, Times.micros(upTo.get()));
      if (after.isPresent()) {
        range = Expressions.and(range, Expressions.greaterThan(time, Times.micros(after.get())));
      }
      return read(raw, snapshot.get(), range, columns);
    }

    /** Finalized windows of an aggregate whose measures differ from the raw archive's. */
    List<CorrectionSet.WindowFix> windows(FactFeed f, FeedSchema declared, Aggregate a) {
      Optional<Instant> watermark = now.watermark(a.name());
      if (watermark.isEmpty()) {
        return List.of();
      }
      Aggregation rule = a.rule();
      TableName raw = f.raw().table();
      Column time = declared.eventTime();
      Optional<Instant> afterWindows = before.watermark(a.name()).map(p -> p.minus(rule.windows().size()));
      // every column of the feed once: the appended rows are read once for every aggregate, dedup and all
      List<Fields> rows = new ArrayList<>(appended(raw, declared.columns()));
      rows.addAll(between(raw, time.name(), afterWindows, watermark, declared.columns()));
      Set<Aggregation.Key> candidates = CorrectionRules.finalWindows(rows, rule, time, watermark.get());
      if (candidates.isEmpty()) {
        return List.of();
      }
      Instant lo = candidates.stream().map(Aggregation.Key::start).min(Comparator.naturalOrder()).orElseThrow();
      Instant hi = rule.windows().end(candidates.stream().map(Aggregation.Key::start).max(Comparator.naturalOrder())
          .orElseThrow());
      List<Fields> inRange = read(raw, now.snapshot(raw.toString()).get(), Expressions.and(
          Expressions.greaterThanOrEqual(time.name(), Times.micros(lo)),
          Expressions.lessThan(time.name(), Times.micros(hi))), declared.columns());
      Map<Aggregation.Key, List<Object>> fresh = new LinkedHashMap<>(rule.compute(inRange, time));
      fresh.keySet().retainAll(candidates);
      Map<Aggregation.Key, List<List<Object>>> held = new HashMap<>();
      Long heldAt = at.snapshot(a.table());
      if (heldAt != null) {
        String start = rule.windowStart().name();
        Expression filter = Expressions.and(KeyFilters.of(rule.groupBy(), candidates.stream()
            .map(Aggregation.Key::group).toList()), Expressions.and(Expressions.greaterThanOrEqual(start,
            Times.micros(lo)), Expressions.lessThan(start, Times.micros(hi))));
        for (Fields r : read(a.table(), heldAt, filter, rule.schema())) {
          Aggregation.Key k = rule.keyOfOutput(r);
          if (candidates.contains(k)) {
            held.computeIfAbsent(k, x -> new ArrayList<>()).add(rule.measuresOf(r));
          }
        }
      }
      return CorrectionRules.windowFixes(a.name(), rule, fresh, held);
    }

    /** Final keys of a fact feed whose rows in the deduplicated table are not exactly their first occurrence. */
    List<CorrectionSet.RecordFix> records(FactFeed f, FeedSchema declared) {
      Optional<Instant> watermark = now.watermark(f.dedup().stream());
      if (watermark.isEmpty()) {
        return List.of();
      }
      TableName raw = f.raw().table();
      String time = declared.eventTime().name();
      List<Fields> candidates = new ArrayList<>(appended(raw, declared.columns()));
      candidates.addAll(between(raw, time, before.watermark(f.dedup().stream()), watermark, declared.columns()));
      if (candidates.isEmpty()) {
        return List.of();
      }
      Instant min = candidates.stream().map(r -> r.instant(declared.eventTime())).min(Comparator.naturalOrder())
          .orElseThrow();
      Instant max = candidates.stream().map(r -> r.instant(declared.eventTime())).max(Comparator.naturalOrder())
          .orElseThrow();
      Expression inRange = Expressions.and(
          Expressions.greaterThanOrEqual(time, Times.micros(min.minus(CorrectionRules.DUPLICATE_SPREAD))),
          Expressions.lessThanOrEqual(time, Times.micros(max.plus(CorrectionRules.DUPLICATE_SPREAD))));
      Set<List<Object>> keys = new HashSet<>();
      candidates.forEach(r -> keys.add(declared.keyOf(r)));
      Expression ofKeys = Expressions.and(inRange, KeyFilters.of(declared.key(), keys));
      Map<List<Object>, Occurrence> first = new TreeMap<>(io.tidemark.core.SqlOrder.valuesAscendingNullsFirst());
      Comparator<Occurrence> order = Occurrence.firstFirst(f.schema());
      // the first occurrence carries the values of the fields promoted into the feed, which its fix writes back
      for (Fields r : read(raw, now.snapshot(raw.toString()).get(), ofKeys,
          declared.columns().plus(Ingest.BATCH_ID, Ingest.SOURCE_FILE, Ingest.INGEST_TS))) {
        Occurrence o = Occurrence.of(r, declared);
        if (keys.contains(o.key(declared))) {
          first.merge(o.key(declared), o, (a, b) -> order.compare(a, b) <= 0 ? a : b);
        }
      }
      Map<List<Object>, List<List<Object>>> held = new HashMap<>();
      Long heldAt = at.snapshot(f.dedupTable());
      if (heldAt != null) {
        for (Fields r : read(f.dedupTable(), heldAt, ofKeys, declared.columns())) {
          List<Object> k = declared.keyOf(r);
          if (keys.contains(k)) {
            held.computeIfAbsent(k, x -> new ArrayList<>()).add(r.values(declared.columns().columns()));
          }
        }
      }
      return CorrectionRules.recordFixes(f.schema(), first, held, watermark.get());
    }

    /** Final changes of a dimension in its raw archive that the SCD2 stream never applied (normalized). */
    List<Change> changes(DimensionFeed d, DimensionSchema declared) {
      Optional<Instant> watermark = now.watermark(d.stream());
      if (watermark.isEmpty()) {
        return List.of();
      }
      TableName raw = d.raw().table();
      Schema columns = declared.feed().columns();
      List<Change> candidates = new ArrayList<>();
      appended(raw, columns).forEach(r -> candidates.add(declared.change(r)));
      between(raw, declared.changeTime().name(), before.watermark(d.stream()), watermark, columns)
          .forEach(r -> candidates.add(declared.change(r)));
      List<Change> late = CorrectionRules.lateChanges(candidates, watermark.get(), List.of());
      if (late.isEmpty()) {
        return List.of();
      }
      Long logAt = at.snapshot(d.changes());
      if (logAt == null) {
        return late;
      }
      Set<List<Object>> keys = new HashSet<>();
      late.forEach(c -> keys.add(c.key()));
      // as stored (the stream logs normalized changes)
      List<Change> logged = read(d.changes(), logAt, KeyFilters.of(declared.key(), keys), declared.logged())
          .stream().map(declared::change).filter(c -> keys.contains(c.key())).toList();
      return CorrectionRules.lateChanges(late, watermark.get(), logged);
    }
  }
}
