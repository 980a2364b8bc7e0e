package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.Tables;
import io.tidemark.core.CommitKeys;
import io.tidemark.core.Events;
import io.tidemark.core.Times;
import io.tidemark.core.WindowCounts;
import io.tidemark.core.Windows;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
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
 * The windows the arrival finalized are final under the counts stream's watermark ({@link Windows#isFinal}), each
 * written once and on a window's start, and count no more events than the raw archive holds in them.
 */
final class WindowsFinal extends ArrivalCheck {
  static final String NAME = "windows-final";

  WindowsFinal() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Tables t = reads.tables();
    Staged.Change counts = staged.changes().get(t.eventCounts());
    if (counts == null) {
      return AuditCheck.of(NAME, t.eventCounts().toString(), 0, "no window finalized");
    }
    Windows windows = new Windows(reads.config().countsWindow());
    // no watermark at all: a commit that says it is the counts stream's but carries none of its provenance
    Instant watermark = counts.snapshots().stream().map(s -> s.summary().get(CommitKeys.WATERMARK_MS))
        .filter(Objects::nonNull).map(Long::parseLong).max(Long::compare).map(Instant::ofEpochMilli).orElse(null);
    List<String> bad = new ArrayList<>();
    Map<String, Long> written = new HashMap<>();
    Set<Object> starts = new HashSet<>();
    Instant from = null;
    Instant to = null;
    // the windows the counts stream finalized: a restatement's (a late window inserted, which appends when nothing
    // is replaced) are final under the watermarks its plan read and recounted by its audit, and a restatement of a
    // late-only arrival is staged with no counts commit, so no staged watermark to hold them to
    for (Record r : CheckReads.appended(staged, t.eventCounts(), WindowCounts.SCHEMA.names(),
        s -> !Provenance.madeBy(s, CommitKeys.RESTATEMENT_STREAM))) {
      String id = (String) r.getField(WindowCounts.COMPANY_ID.name());
      Instant start = IcebergFields.instant(r.getField(WindowCounts.W_START.name()));
      long n = (Long) r.getField(WindowCounts.N.name());
      String w = id + " " + start;
      if (written.put(key(id, start), n) != null) {
        bad.add("window " + w + " written twice");
      }
      if (n < 1 || !windows.isStart(start)) {
        bad.add("window " + w + " holds n=" + n + (windows.isStart(start) ? "" : ", not on a window boundary"));
      }
      if (!windows.isFinal(start, watermark)) {
        bad.add("window " + w + " written before the watermark (" + (watermark == null ? "none staged" : watermark)
            + ") passed its end");
      }
      // as micros: Iceberg makes no literal of the OffsetDateTime the reader returns
      starts.add(Times.micros(start));
      from = from == null || start.isBefore(from) ? start : from;
      to = to == null || windows.end(start).isAfter(to) ? windows.end(start) : to;
    }
    if (!written.isEmpty()) {
      String wStart = WindowCounts.W_START.name();
      // the windows published before, read only where the staged ones lie: the range keeps the files' column
      // bounds pruning when IN has too many values for Iceberg to use them
      Expression published = Expressions.and(Expressions.in(wStart, starts.toArray()), Expressions.and(
          Expressions.greaterThanOrEqual(wStart, Times.micros(from)), Expressions.lessThan(wStart, Times.micros(to))));
      CompletableFuture<DriverReads.Read> before = counts.publishedSnapshot() == null
          ? CompletableFuture.completedFuture(DriverReads.Read.NONE)
          : reads.async(() -> DriverReads.readAtOnce(counts.table(), counts.publishedSnapshot(), published,
              List.of(WindowCounts.COMPANY_ID.name(), wStart), reads.files(), CheckReads.BUDGET));
      String eventTs = Events.EVENT_TS.name();
      Expression range = Expressions.and(Expressions.greaterThanOrEqual(eventTs, Times.micros(from)),
          Expressions.lessThan(eventTs, Times.micros(to)));
      CompletableFuture<DriverReads.Read> rawRows = reads.async(() -> DriverReads.readAtOnce(
          staged.table(t.rawEvents()), null, range, List.of(Events.COMPANY_ID.name(), eventTs), reads.files(),
          CheckReads.BUDGET));
      reads.timings().put(NAME + " files", (long) (CheckReads.join(before).files()
          + CheckReads.join(rawRows).files()));
      reads.timings().put(NAME + " manifests", (long) CheckReads.manifests(counts.table())
          + CheckReads.manifests(staged.table(t.rawEvents())));
      for (Record r : CheckReads.join(before).rows()) {
        String key = key((String) r.getField(WindowCounts.COMPANY_ID.name()),
            IcebergFields.instant(r.getField(wStart)));
        if (written.containsKey(key)) {
          bad.add("window " + key + " was published before");
        }
      }
      Map<String, Long> raw = new HashMap<>();
      for (Record r : CheckReads.join(rawRows).rows()) {
        raw.merge(key((String) r.getField(Events.COMPANY_ID.name()),
            windows.start(IcebergFields.instant(r.getField(eventTs)))), 1L, Long::sum);
      }
      written.forEach((k, n) -> {
        if (n > raw.getOrDefault(k, 0L)) {
          bad.add("window " + k + " counts " + n + " events, the raw archive holds " + raw.getOrDefault(k, 0L));
        }
      });
    }
    return AuditCheck.of(NAME, t.eventCounts().toString(), bad.size(), bad.isEmpty() ? written.size()
        + " finalized window(s): once each, final under the watermark, within the raw archive's events"
        : CheckReads.first(bad));
  }

  /** A window as this check keys it: its company and its start in epoch milliseconds. */
  private static String key(String company, Instant start) {
    return company + "@" + start.toEpochMilli();
  }
}
