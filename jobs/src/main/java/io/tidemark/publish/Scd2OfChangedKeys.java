package io.tidemark.publish;

import io.tidemark.Timings;
import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.core.Change;
import io.tidemark.core.Column;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Scd2Since;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.KeyFilters;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Pipeline;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The SCD2 invariants on the keys the arrival changed, in every dimension ({@link Scd2Invariants}), by induction on the
 * published dimension (which passed them when it was published): the change log is read from each key's earliest
 * staged change on, the dimension's versions of those keys in full (every file since its last compaction may hold
 * some).
 */
final class Scd2OfChangedKeys extends ArrivalCheck {
  static final String NAME = "scd2-invariants";

  Scd2OfChangedKeys() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Pipeline p = reads.pipeline();
    List<String> bad = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    List<String> tables = new ArrayList<>();
    long violations = 0;
    for (DimensionFeed d : p.dimensions()) {
      tables.add(d.table().toString());
      Outcome o = check(staged, reads, d);
      violations += o.violations().size();
      o.violations().forEach(v -> bad.add(d.table() + ": " + v));
      if (o.keys() > 0) {
        seen.add(o.keys() + " changed key(s) of " + d.name());
      }
    }
    return AuditCheck.of(NAME, String.join(", ", tables), violations, !bad.isEmpty() ? CheckReads.first(bad)
        : seen.isEmpty() ? "no dimension change staged" : String.join("; ", seen) + ": one open version, no gap or "
            + "overlap, equal to the history rebuilt from the published versions and the changes since");
  }

  private record Outcome(int keys, List<Scd2Invariants.Violation> violations) {}

  /**
   * Each key's history is rebuilt from its published versions before its earliest staged change and the logged
   * changes from then on ({@link Scd2Since}), and compared with all its staged versions, the old ones included (an old
   * version the arrival should not have touched is still checked).
   */
  private static Outcome check(Staged staged, CheckReads reads, DimensionFeed feed) {
    Timings times = reads.timings();
    ExecutorService files = reads.files();
    long budget = CheckReads.BUDGET;
    // the attributes as the staged log holds them: a field promoted into the dimension is tracked too
    DimensionSchema d = FeedDeclarations.of(staged.table(feed.changes()), feed.dimension());
    List<Column> promoted = d.promotedBeyond(feed.dimension());
    List<Change> arrived = CheckReads.appended(staged, feed.changes(), d.logged().names()).stream()
        .map(r -> d.change(IcebergFields.of(r))).toList();
    Map<List<Object>, Long> from = Scd2Since.earliest(arrived);
    // a version a staged commit wrote with no logged change of its key (a job's wrong write; a hand-made one the
    // writers check names too): checked against the key's whole history
    for (org.apache.iceberg.data.Record r : CheckReads.appended(staged, feed.table(), d.version().names())) {
      from.putIfAbsent(d.versionOf(IcebergFields.of(r)).key(), Scd2Since.ALL);
    }
    if (from.isEmpty()) {
      return new Outcome(0, List.of());
    }
    Expression keys = KeyFilters.of(d.key(), from.keySet());
    Table dimension = staged.table(feed.table());
    Staged.Change dimensionChange = staged.changes().get(feed.table());
    // the dimension as published: where the staged one is when it did not change, none when it is new since
    Long published = dimensionChange != null ? dimensionChange.publishedSnapshot()
        : dimension.currentSnapshot() == null ? null : dimension.currentSnapshot().snapshotId();
    if (published != null && dimension.snapshot(published) == null) {
      // the published snapshot is gone from the staged table's metadata: check against every logged change
      from.replaceAll((key, time) -> Scd2Since.ALL);
      published = null;
    }
    if (published != null && !promoted.isEmpty() && !hasAll(dimension, published, promoted)) {
      // published before a promotion: its versions lack the attribute the history now tracks (a tag of then reads
      // them so), so they cannot stand for the changes before; check against every logged change instead
      from.replaceAll((key, time) -> Scd2Since.ALL);
      published = null;
    }
    Long at = published;
    List<String> columns = d.version().names();
    String name = NAME + " " + feed.name();
    // the staged versions and the published ones, from one read of the dimension's files when the staged commits
    // only added files to it (the streams' do); the change log's read meanwhile
    CompletableFuture<DriverReads.Reads> dimensionRead = reads.async(() -> times.time(name + " dimension ms",
        () -> at == null
            ? new DriverReads.Reads(DriverReads.readAtOnce(dimension, null, keys, columns, files, budget),
                DriverReads.Read.NONE)
            : dimensionChange == null ? twice(DriverReads.readAtOnce(dimension, null, keys, columns, files, budget))
            : DriverReads.readNowAndAt(dimension, at, keys, columns, files, budget)));
    DriverReads.Read logged = times.time(name + " log ms", () -> DriverReads.readAtOnce(
        staged.table(feed.changes()), null, logFilter(d, from), d.logged().names(), files, budget));
    DriverReads.Read stagedVersions = CheckReads.join(dimensionRead).now();
    DriverReads.Read publishedVersions = CheckReads.join(dimensionRead).then();
    List<Change> changes = new ArrayList<>(Scd2Since.asChanges(versions(publishedVersions, d, from), from));
    logged.rows().stream().map(r -> d.change(IcebergFields.of(r)))
        .filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    List<Version> versions = versions(stagedVersions, d, from);
    // what the reads' cost follows: files opened (the dimension's data and delete files)
    times.put(name + " log files", logged.files());
    times.put(name + " dimension files", (long) stagedVersions.files() + stagedVersions.deleteFiles());
    times.put(name + " manifests", (long) CheckReads.manifests(staged.table(feed.changes()))
        + CheckReads.manifests(dimension));
    long d0 = System.nanoTime();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      List<Scd2Invariants.Violation> v = Scd2Invariants.check(db, versions, Optional.of(changes), d);
      times.put(name + " in duckdb", (System.nanoTime() - d0) / 1_000_000);
      return new Outcome(from.size(), v);
    } catch (SQLException e) {
      throw new IllegalStateException("the SCD2 check could not run in DuckDB: " + e.getMessage(), e);
    }
  }

  /** Whether the dimension's schema at that snapshot has every one of the columns. */
  private static boolean hasAll(Table dimension, long snapshot, List<Column> columns) {
    Integer schemaId = dimension.snapshot(snapshot).schemaId();
    org.apache.iceberg.Schema then = schemaId == null ? dimension.schema() : dimension.schemas().get(schemaId);
    return columns.stream().allMatch(c -> then.findField(c.name()) != null);
  }

  /** Keys past which a per-key filter is no longer worth evaluating row by row. */
  private static final int PER_KEY = 200;

  /**
   * The logged changes of each key from its earliest on ({@link Scd2Since}; rows still go through
   * {@link Scd2Since#isFrom}): the change log's files are bounded by key (bucketed) and change time, so files written
   * before the earliest change are not opened.
   */
  static Expression logFilter(DimensionSchema d, Map<List<Object>, Long> from) {
    String time = d.changeTime().name();
    if (from.size() > PER_KEY) {
      Expression keys = KeyFilters.of(d.key(), from.keySet());
      long earliest = from.values().stream().min(Long::compare).orElseThrow();
      return earliest == Scd2Since.ALL ? keys : Expressions.and(keys, Expressions.greaterThanOrEqual(time, earliest));
    }
    Expression any = Expressions.alwaysFalse();
    for (Map.Entry<List<Object>, Long> e : from.entrySet()) {
      Expression one = Expressions.alwaysTrue();
      for (int i = 0; i < d.key().size(); i++) {
        Object v = e.getKey().get(i);
        Expression eq = v == null ? Expressions.isNull(d.key().get(i).name())
            : Expressions.equal(d.key().get(i).name(), KeyFilters.literal(v));
        one = i == 0 ? eq : Expressions.and(one, eq);
      }
      any = Expressions.or(any, e.getValue() == Scd2Since.ALL ? one
          : Expressions.and(one, Expressions.greaterThanOrEqual(time, e.getValue())));
    }
    return any;
  }

  /** The versions of the changed keys a read holds (its filter picks a superset for a composite key). */
  private static List<Version> versions(DriverReads.Read read, DimensionSchema d, Map<List<Object>, Long> from) {
    return read.rows().stream().map(r -> d.versionOf(IcebergFields.of(r))).filter(v -> from.containsKey(v.key()))
        .toList();
  }

  private static DriverReads.Reads twice(DriverReads.Read read) {
    return new DriverReads.Reads(read, read);
  }
}
