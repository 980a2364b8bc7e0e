package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.core.Aggregation;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.Fields;
import io.tidemark.core.Measure;
import io.tidemark.core.SqlOrder;
import io.tidemark.core.Times;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.FactFeed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.stream.Provenance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The windows the arrival finalized, in every windowed aggregate, are final under their stream's watermark
 * ({@link io.tidemark.core.Windows#isFinal}), each written once and on a window's start, and lie within what the raw
 * archive holds for them: the raw archive has rows of the window's group in it, no more rows than a count says, none
 * below a minimum or above a maximum.
 */
final class WindowsFinal extends ArrivalCheck {
  static final String NAME = "windows-final";

  WindowsFinal() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Pipeline p = reads.pipeline();
    List<String> bad = new ArrayList<>();
    List<String> tables = new ArrayList<>();
    int windows = 0;
    for (FactFeed f : p.facts()) {
      for (Aggregate a : f.aggregates()) {
        tables.add(a.table().toString());
        windows += check(staged, reads, f, a, bad);
      }
    }
    return AuditCheck.of(NAME, String.join(", ", tables), bad.size(), bad.isEmpty()
        ? (windows == 0 ? "no window finalized" : windows + " finalized window(s): once each, final under the "
            + "watermark, within the raw archive's rows")
        : CheckReads.first(bad));
  }

  /** One aggregate's staged windows: how many, their problems into {@code bad}. */
  private static int check(Staged staged, CheckReads reads, FactFeed f, Aggregate a, List<String> bad) {
    Staged.Change counts = staged.changes().get(a.table());
    if (counts == null) {
      return 0;
    }
    Aggregation rule = a.rule();
    // no watermark at all: a commit that says it is the stream's but carries none of its provenance
    Instant watermark = counts.snapshots().stream().map(s -> s.summary().get(CommitKeys.WATERMARK_MS))
        .filter(Objects::nonNull).map(Long::parseLong).max(Long::compare).map(Instant::ofEpochMilli).orElse(null);
    Map<Aggregation.Key, List<Object>> written = new HashMap<>();
    Set<Object> starts = new HashSet<>();
    Instant from = null;
    Instant to = null;
    // the windows the stream finalized: a restatement's (a late window inserted, which appends when nothing is
    // replaced) are final under the watermarks its plan read and recomputed by its audit, and a restatement of a
    // late-only arrival is staged with no commit of the stream, so no staged watermark to hold them to
    for (Record r : CheckReads.appended(staged, a.table(), rule.schema().names(),
        s -> !Provenance.madeBy(s, CommitKeys.RESTATEMENT_STREAM))) {
      Fields row = IcebergFields.of(r);
      Aggregation.Key k = rule.keyOfOutput(row);
      List<Object> measures = rule.measuresOf(row);
      String w = a.name() + " window " + describe(k);
      if (written.put(k, measures) != null) {
        bad.add(w + " written twice");
      }
      if (!rule.windows().isStart(k.start())) {
        bad.add(w + " is not on a window boundary");
      }
      for (int i = 0; i < rule.measures().size(); i++) {
        Measure m = rule.measures().get(i);
        if (m.function() == Measure.Function.COUNT && (Long) measures.get(i) < 1) {
          bad.add(w + " holds " + m.name() + "=" + measures.get(i));
        }
      }
      if (!rule.windows().isFinal(k.start(), watermark)) {
        bad.add(w + " written before the watermark (" + (watermark == null ? "none staged" : watermark)
            + ") passed its end");
      }
      // as micros: Iceberg makes no literal of the OffsetDateTime the reader returns
      starts.add(Times.micros(k.start()));
      from = from == null || k.start().isBefore(from) ? k.start() : from;
      to = to == null || rule.windows().end(k.start()).isAfter(to) ? rule.windows().end(k.start()) : to;
    }
    if (written.isEmpty()) {
      return 0;
    }
    String wStart = rule.windowStart().name();
    // the windows published before, read only where the staged ones lie: the range keeps the files' column bounds
    // pruning when IN has too many values for Iceberg to use them
    Expression published = Expressions.and(Expressions.in(wStart, starts.toArray()), Expressions.and(
        Expressions.greaterThanOrEqual(wStart, Times.micros(from)), Expressions.lessThan(wStart, Times.micros(to))));
    List<String> keyColumns = new ArrayList<>(rule.groupBy().stream().map(io.tidemark.core.Column::name).toList());
    keyColumns.add(wStart);
    CompletableFuture<DriverReads.Read> before = counts.publishedSnapshot() == null
        ? CompletableFuture.completedFuture(DriverReads.Read.NONE)
        : reads.async(() -> DriverReads.readAtOnce(counts.table(), counts.publishedSnapshot(), published,
            keyColumns, reads.files(), CheckReads.BUDGET));
    String eventTime = f.schema().eventTime().name();
    Expression range = Expressions.and(Expressions.greaterThanOrEqual(eventTime, Times.micros(from)),
        Expressions.lessThan(eventTime, Times.micros(to)));
    List<String> rawColumns = new ArrayList<>(rule.reads().stream().map(io.tidemark.core.Column::name).toList());
    rawColumns.add(eventTime);
    CompletableFuture<DriverReads.Read> rawRows = reads.async(() -> DriverReads.readAtOnce(
        staged.table(f.raw().table()), null, range, rawColumns, reads.files(), CheckReads.BUDGET));
    reads.timings().put(NAME + " files", (long) (CheckReads.join(before).files()
        + CheckReads.join(rawRows).files()));
    reads.timings().put(NAME + " manifests", (long) CheckReads.manifests(counts.table())
        + CheckReads.manifests(staged.table(f.raw().table())));
    for (Record r : CheckReads.join(before).rows()) {
      Aggregation.Key k = rule.keyOfOutput(IcebergFields.of(r));
      if (written.containsKey(k)) {
        bad.add(a.name() + " window " + describe(k) + " was published before");
      }
    }
    List<Fields> raw = CheckReads.join(rawRows).rows().stream().map(IcebergFields::of).toList();
    Map<Aggregation.Key, List<Object>> fromRaw = rule.compute(raw, f.schema().eventTime());
    written.forEach((k, measures) -> {
      List<Object> all = fromRaw.get(k);
      String w = a.name() + " window " + describe(k);
      if (all == null) {
        bad.add(w + ": the raw archive holds no row of it");
        return;
      }
      for (int i = 0; i < rule.measures().size(); i++) {
        Measure m = rule.measures().get(i);
        Object v = measures.get(i);
        Object r = all.get(i);
        boolean within = switch (m.function()) {
          case COUNT -> (Long) v <= (Long) r;
          case MIN -> v == null || r != null && SqlOrder.VALUES.compare(v, r) >= 0;
          case MAX -> v == null || r != null && SqlOrder.VALUES.compare(v, r) <= 0;
          case SUM -> true;
        };
        if (!within) {
          bad.add(w + ": " + m.name() + " " + v + ", the raw archive's " + m.function().fileName() + " over all its "
              + "rows is " + r);
        }
      }
    });
    return written.size();
  }

  /** A window as messages name it: its group, then its start. */
  static String describe(Aggregation.Key k) {
    return String.join("|", k.group().stream().map(String::valueOf).toList()) + " " + k.start();
  }
}
