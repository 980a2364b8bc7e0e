package io.tidemark.publish;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.tables.IcebergTables;
import io.tidemark.stream.BatchArrivals;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;
import org.projectnessie.model.Content;
import org.projectnessie.model.ContentKey;
import org.projectnessie.model.IcebergTable;

/**
 * What waits on the staging branch to be published: per table of the pipeline that differs from the published
 * branch, the table at the staged commit and its snapshots since the one the published branch holds. Everything
 * is read at two commits (the published head and the staged one), so a stream committing meanwhile changes nothing
 * of what is checked and published.
 */
public final class Staged {
  /** One table that changed: loaded at the staged commit; {@code snapshots} the staged ones, oldest first. */
  public record Change(TableName name, Table table, Long publishedSnapshot, List<Snapshot> snapshots,
                       boolean diverged) {
    /**
     * Rows the table gained: those the staged snapshots added less those they deleted (a dimension's closed version
     * is rewritten, a promotion's backfill rewrites rows), compaction aside. What a publish says per table.
     */
    public long netRows() {
      return addedRows() - deletedRows();
    }

    /** Rows the staged snapshots added. */
    public long addedRows() {
      return snapshots.stream().filter(s -> !DataOperations.REPLACE.equals(s.operation()))
          .mapToLong(s -> Long.parseLong(s.summary().getOrDefault(SnapshotSummary.ADDED_RECORDS_PROP, "0"))).sum();
    }

    /** Rows the staged snapshots deleted (the SCD2 dimension closes versions; compaction is not counted). */
    public long deletedRows() {
      return snapshots.stream().filter(s -> !DataOperations.REPLACE.equals(s.operation()))
          .mapToLong(s -> Long.parseLong(s.summary().getOrDefault(SnapshotSummary.DELETED_RECORDS_PROP, "0"))).sum();
    }

    /** The staged snapshot a stream or the restatement made last, or null. */
    public Long stagedSnapshot() {
      return snapshots.isEmpty() ? publishedSnapshot : snapshots.get(snapshots.size() - 1).snapshotId();
    }
  }

  private final String publishedHash;
  private final String stagedHash;
  private final Map<TableName, Change> changes;
  private final List<ContentKey> otherKeys;

  private final SparkSession spark;
  private final TidemarkConfig config;
  private final Map<TableName, Table> unchanged = new ConcurrentHashMap<>();

  private Staged(SparkSession spark, TidemarkConfig config, String publishedHash, String stagedHash,
                 Map<TableName, Change> changes, List<ContentKey> otherKeys) {
    this.spark = spark;
    this.config = config;
    this.publishedHash = publishedHash;
    this.stagedHash = stagedHash;
    this.changes = changes;
    this.otherKeys = otherKeys;
  }

  /**
   * What {@code changedKeys} (the Nessie diff between the two commits) means for the pipeline's tables: each changed
   * table is loaded at the staged commit, and its snapshots are walked back to the published one.
   */
  static Staged read(SparkSession spark, TidemarkConfig config, Map<ContentKey, Content> published,
                     String publishedHash, String stagedHash, List<ContentKey> changedKeys) {
    Map<ContentKey, TableName> ours = new LinkedHashMap<>();
    for (TableName t : config.pipeline().tables()) {
      ours.put(key(t), t);
    }
    List<ContentKey> others = changedKeys.stream().filter(k -> !ours.containsKey(k)).toList();
    // loaded at once: each is a catalog round trip and a metadata file read
    Map<TableName, CompletableFuture<Change>> loading = new LinkedHashMap<>();
    // a thread per table: each load mostly waits on Nessie and object storage
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, changedKeys.size()));
    try {
      for (ContentKey k : changedKeys) {
        TableName t = ours.get(k);
        if (t != null) {
          Long at = published.get(k) instanceof IcebergTable it ? it.getSnapshotId() : null;
          loading.put(t, CompletableFuture.supplyAsync(() -> change(spark, config, t, at, stagedHash), pool));
        }
      }
    } finally {
      pool.shutdown();
    }
    Map<TableName, Change> changes = new LinkedHashMap<>();
    for (TableName t : config.pipeline().tables()) {
      if (loading.containsKey(t)) {
        changes.put(t, join(loading.get(t)));
      }
    }
    return new Staged(spark, config, publishedHash, stagedHash, changes, others);
  }

  private static Change join(CompletableFuture<Change> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  private static Change change(SparkSession spark, TidemarkConfig config, TableName t, Long published,
                               String stagedHash) {
    Table table = load(spark, config, t, stagedHash);
    List<Snapshot> staged = new ArrayList<>();
    boolean found = published == null || published < 0;
    Snapshot s = table.currentSnapshot();
    while (s != null) {
      if (!found && s.snapshotId() == published) {
        found = true;
        break;
      }
      staged.add(0, s);
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    // not in the staged history: the published table was changed on the published branch itself
    return new Change(t, table, published != null && published < 0 ? null : published, staged,
        !found && published != null && published >= 0);
  }

  private static Table load(SparkSession spark, TidemarkConfig config, TableName t, String hash) {
    return IcebergTables.load(spark, t.sqlAt(config.stagingBranch(), hash));
  }

  /** A table at the staged commit, changed or not (one that did not change is loaded on first use). */
  public Table table(TableName t) {
    Change c = changes.get(t);
    return c != null ? c.table() : unchanged.computeIfAbsent(t, x -> load(spark, config, x, stagedHash));
  }

  /** Nessie's key of a table. */
  static ContentKey key(TableName t) {
    List<String> parts = new ArrayList<>(List.of(t.namespace().split("\\.")));
    parts.add(t.table());
    return ContentKey.of(parts);
  }

  public String publishedHash() {
    return publishedHash;
  }

  public String stagedHash() {
    return stagedHash;
  }

  /** The pipeline's tables that changed, in the configuration's order. */
  public Map<TableName, Change> changes() {
    return changes;
  }

  /** Content that differs but is none of the pipeline's tables (another pipeline's, a user's): published along. */
  public List<ContentKey> otherKeys() {
    return otherKeys;
  }

  public boolean isEmpty() {
    return changes.isEmpty() && otherKeys.isEmpty();
  }

  /**
   * The arrivals each feed's staged stream commits read, by feed, in the pipeline's order of feeds: a commit names
   * the stream that made it, and the stream its feed. The record of a run's batches is left out: it names every
   * stream of the run and the arrivals of all of them (companies arrival 4 alone would read as events' too).
   */
  public Map<String, TreeSet<Integer>> arrivalsByFeed() {
    Map<String, TreeSet<Integer>> out = new LinkedHashMap<>();
    config.pipeline().feeds().forEach(f -> out.put(f.name(), new TreeSet<>()));
    TableName records = config.pipeline().shared().streamBatches();
    Map<String, Integer> held = new LinkedHashMap<>();
    config.pipeline().feeds().forEach(f -> publishedArrival(f.raw().table(), f.raw().stream())
        .ifPresent(a -> held.put(f.name(), a)));
    for (Change c : changes.values()) {
      if (c.name().equals(records)) {
        continue;
      }
      for (Snapshot s : c.snapshots()) {
        SortedSet<Integer> read = BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS));
        if (read.isEmpty()) {
          continue;
        }
        for (String stream : streamsOf(s)) {
          config.pipeline().findStream(stream).ifPresent(d -> out.get(d.feed().name()).addAll(read));
        }
      }
    }
    // a stream that read arrivals again (the SCD2 stream on a new checkpoint reads every change) publishes only those
    // the published branch lacks
    out.forEach((feed, numbers) -> numbers.removeIf(n -> n <= held.getOrDefault(feed, 0)));
    out.values().removeIf(Set::isEmpty);
    return out;
  }

  /**
   * The newest arrival the published branch holds of stream {@code stream}: the arrivals its newest batch that read
   * any names, in the history of the table it appends to as published (the staging branch's commit the published
   * branch holds). Empty when that table was never published or its batches' snapshots have expired.
   */
  Optional<Integer> publishedArrival(TableName table, String stream) {
    Change c = changes.get(table);
    Table loaded = c != null ? c.table() : table(table);
    Long at = c != null ? c.publishedSnapshot()
        : loaded.currentSnapshot() == null ? null : loaded.currentSnapshot().snapshotId();
    for (Snapshot s = at == null ? null : loaded.snapshot(at); s != null;
         s = s.parentId() == null ? null : loaded.snapshot(s.parentId())) {
      if (stream.equals(s.summary().get(CommitKeys.STREAM))) {
        SortedSet<Integer> read = BatchArrivals.parse(s.summary().get(CommitKeys.ARRIVALS));
        if (!read.isEmpty()) {
          return Optional.of(read.last());
        }
      }
    }
    return Optional.empty();
  }

  /** Who made the staged snapshots, each once: streams by name, "restate", or the operation of an unattributed one. */
  public Set<String> writers() {
    return changes.values().stream().flatMap(c -> c.snapshots().stream())
        .flatMap(s -> s.summary().containsKey(CommitKeys.STREAM) ? streamsOf(s).stream()
            : Stream.of(s.operation()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The streams a snapshot names: one, or those a commit of several streams' records lists. */
  private static List<String> streamsOf(Snapshot s) {
    String stream = s.summary().get(CommitKeys.STREAM);
    return stream == null ? List.of() : List.of(stream.split(",\\s*"));
  }
}
