package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.core.BatchColumns;
import io.tidemark.core.CommitKeys;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.BatchArrivals;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.data.Record;

/**
 * The streams fed by one feed have all taken in the same arrivals, and every staged batch of a stream is recorded
 * (its run ended): otherwise some tables hold an arrival others lack.
 */
final class SameArrivals extends ArrivalCheck {
  static final String NAME = "same-arrivals";

  SameArrivals() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Pipeline p = reads.pipeline();
    TableName batches = p.shared().streamBatches();
    Map<String, Integer> newest = new LinkedHashMap<>();
    for (Record r : CheckReads.appended(staged, batches, List.of(BatchColumns.STREAM.name(),
        BatchColumns.ARRIVAL.name()))) {
      Integer a = (Integer) r.getField(BatchColumns.ARRIVAL.name());
      if (a != null) {
        newest.merge((String) r.getField(BatchColumns.STREAM.name()), a, Math::max);
      }
    }
    // a run killed before `stream all` recorded its batches (the record is committed when every run has ended)
    // leaves commits of some streams and no record: the commits' own provenance says which arrivals they read
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        String stream = s.summary().get(CommitKeys.STREAM);
        SortedSet<Integer> read = BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS));
        if (stream != null && !read.isEmpty()) {
          newest.merge(stream, read.last(), Math::max);
        }
      }
    }
    List<String> bad = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Feed feed : p.feeds()) {
      List<String> streams = p.streamsOf(feed).stream().map(StreamDef::name).toList();
      Map<String, Integer> ofFeed = new TreeMap<>();
      for (String k : streams) {
        if (newest.containsKey(k)) {
          ofFeed.put(k, newest.get(k));
        }
      }
      if (ofFeed.isEmpty()) {
        continue;
      }
      // a stream of a feed that staged something, which itself staged nothing, is where the published branch has
      // it: after a stream started over on a new checkpoint (the SCD2 stream, which keeps no state, reads every
      // change again) the others need not run again
      for (StreamDef k : p.streamsOf(feed)) {
        if (!ofFeed.containsKey(k.name())) {
          staged.publishedArrival(k.tables(p.shared()).get(0), k.name()).ifPresent(a -> ofFeed.put(k.name(), a));
        }
      }
      int max = ofFeed.values().stream().max(Integer::compare).orElseThrow();
      List<String> ahead = new ArrayList<>();
      List<String> behind = new ArrayList<>();
      for (String k : streams) {
        Integer a = ofFeed.get(k);
        if (a != null && a == max) {
          ahead.add(k);
        } else {
          behind.add(k + " " + (a == null ? "none staged" : "up to arrival " + a));
        }
      }
      if (!behind.isEmpty()) {
        bad.add(feed.name() + ": " + String.join(", ", ahead) + " took in arrival " + max + ", "
            + String.join(", ", behind) + " (run `tidemark stream all`)");
      }
      seen.add(feed.name() + " up to arrival " + max);
    }
    bad.addAll(unrecorded(staged, batches));
    return AuditCheck.of(NAME, batches.toString(), bad.size(), bad.isEmpty()
        ? (seen.isEmpty() ? "no stream run staged" : "every stream has taken in " + String.join("; ", seen))
        : String.join("; ", bad));
  }

  /**
   * The staged commits of stream batches whose run has not ended: a batch of a stream writes each of its tables in
   * a commit of its own (the dimension and its change log, the archive and the quarantine), so a run killed between
   * them leaves part of the batch, which the provenance of the part alone cannot tell. The runs' record is committed
   * once the run ended (by {@code stream all} when all its runs have), or recovered from the checkpoint by the next
   * run, and its commit says per query the newest batch it recorded: a staged batch that no staged record covers is
   * not known to be whole.
   */
  private static List<String> unrecorded(Staged staged, TableName batches) {
    Map<String, Long> recorded = new HashMap<>();
    Staged.Change records = staged.changes().get(batches);
    if (records != null) {
      for (Snapshot s : records.snapshots()) {
        s.summary().forEach((k, v) -> {
          if (k.startsWith(CommitKeys.RECORDED)) {
            recorded.merge(k.substring(CommitKeys.RECORDED.length()), Long.parseLong(v), Math::max);
          }
        });
      }
    }
    Map<String, String> open = new LinkedHashMap<>();
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        String query = s.summary().get(CommitKeys.QUERY_ID);
        String batch = s.summary().get(CommitKeys.BATCH_ID);
        if (query != null && batch != null && Long.parseLong(batch) > recorded.getOrDefault(query, -1L)) {
          String arrivals = s.summary().get(CommitKeys.ARRIVALS);
          open.merge(s.summary().get(CommitKeys.STREAM) + " batch " + batch
              + (arrivals == null ? "" : " (arrival " + arrivals + ")"), c.name().toString(), (a, b) -> a + ", " + b);
        }
      }
    }
    List<String> out = new ArrayList<>();
    open.forEach((batch, tables) -> out.add(batch + " committed to " + tables + " and not recorded: its run did "
        + "not end"));
    return out.isEmpty() ? out : List.of(String.join(", ", out) + " (run `tidemark stream all`)");
  }
}
