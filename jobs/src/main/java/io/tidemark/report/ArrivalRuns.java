package io.tidemark.report;

import io.tidemark.stream.RunReport;
import io.tidemark.stream.BatchRecord;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the stream runs of each arrival did, from the records of their micro-batches ({@link BatchRecord}): one
 * {@link RunReport} per arrival and stream, the sums a run prints. A run belongs to the newest arrival its batches
 * read; a run that read nothing new (only the trailing batch that moves the watermark on) to the arrival of the
 * stream's run before it; a recovered batch (of a run that died before recording it) is a run of its own. The seconds
 * are the batches' own time, as recorded.
 */
public final class ArrivalRuns {
  private ArrivalRuns() {}

  /** Per arrival, in order, a report per stream (in the order of {@code streams}: {@code stream all}'s). */
  public static SortedMap<Integer, List<RunReport>> of(List<BatchRecord> records, List<String> streams) {
    Map<String, List<BatchRecord>> runs = new LinkedHashMap<>();
    records.stream().sorted(Comparator.comparing(BatchRecord::startedAt).thenComparing(BatchRecord::batchId))
        .forEach(r -> runs.computeIfAbsent(r.stream() + "\u0000" + (r.runId() != null ? r.runId()
            : "batch " + r.batchId()), k -> new ArrayList<>()).add(r));
    Map<String, Integer> lastArrival = new HashMap<>();
    SortedMap<Integer, Map<String, List<BatchRecord>>> byArrival = new TreeMap<>();
    for (List<BatchRecord> run : runs.values()) {
      String stream = run.get(0).stream();
      Integer arrival = run.stream().map(BatchRecord::arrival).filter(java.util.Objects::nonNull)
          .max(Integer::compare).orElse(lastArrival.getOrDefault(stream, 0));
      lastArrival.put(stream, arrival);
      byArrival.computeIfAbsent(arrival, k -> new TreeMap<>(streamOrder(streams)))
          .computeIfAbsent(stream, k -> new ArrayList<>()).addAll(run);
    }
    SortedMap<Integer, List<RunReport>> out = new TreeMap<>();
    byArrival.forEach((arrival, runsOf) -> {
      List<RunReport> reports = new ArrayList<>();
      runsOf.forEach((stream, batches) -> reports.add(RunReport.of(stream, batches.get(0).lateUnit(), batches,
          new LinkedHashMap<>(),
          batches.stream().mapToLong(b -> BatchRecord.orZero(b.durationMs())).sum() / 1000.0)));
      out.put(arrival, reports);
    });
    return out;
  }

  /** "arrival N:" and the line of each stream's run under it. */
  public static void print(SortedMap<Integer, List<RunReport>> arrivals, PrintWriter out) {
    arrivals.forEach((arrival, reports) -> {
      out.println("arrival " + arrival + ":");
      reports.forEach(r -> out.println("  " + r.summary()));
    });
    out.flush();
  }

  /** Streams in the pipeline's order (those it does not know last, by name). */
  private static java.util.Comparator<String> streamOrder(List<String> streams) {
    return java.util.Comparator.<String>comparingInt(s -> streams.indexOf(s) < 0 ? Integer.MAX_VALUE
        : streams.indexOf(s)).thenComparing(java.util.Comparator.naturalOrder());
  }
}
