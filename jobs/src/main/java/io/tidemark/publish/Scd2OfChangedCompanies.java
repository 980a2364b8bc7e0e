package io.tidemark.publish;

import io.tidemark.Timings;
import io.tidemark.audit.AuditCheck;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.config.Tables;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.Column;
import io.tidemark.core.Dimension;
import io.tidemark.core.FeedSchema;
import io.tidemark.lakehouse.tables.FeedDeclarations;
import io.tidemark.core.Scd2Since;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.IcebergFields;
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
 * The SCD2 invariants on the companies the arrival changed ({@link Scd2Invariants}), by induction on the published
 * dimension (which passed them when it was published): the change log is read from each company's earliest staged
 * change on, the dimension's versions of those companies in full (every file since its last compaction may hold
 * some).
 */
final class Scd2OfChangedCompanies extends ArrivalCheck {
  static final String NAME = "scd2-invariants";

  Scd2OfChangedCompanies() {
    super(NAME);
  }

  /**
   * Each company's history is rebuilt from its published versions before its earliest staged change and the logged
   * changes from then on ({@link Scd2Since}), and compared with all its staged versions, the old ones included (an old
   * version the arrival should not have touched is still checked).
   */
  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Tables t = reads.tables();
    Timings times = reads.timings();
    ExecutorService files = reads.files();
    long budget = CheckReads.BUDGET;
    // the attributes as the staged log holds them: a field promoted into the companies is tracked too
    FeedSchema declared = FeedDeclarations.ofChangeLog(staged.table(t.companyChanges()));
    List<Column> promoted = declared.beyond(CompanyChanges.FEED);
    List<CompanyChange> arrived = CheckReads.appended(staged, t.companyChanges(),
        declared.columns().names()).stream().map(r -> CompanyChange.of(IcebergFields.of(r), promoted)).toList();
    Map<String, Long> from = Scd2Since.earliest(arrived);
    if (from.isEmpty()) {
      // a dimension changed without its change log is a hand-made write, which the writers check names
      return AuditCheck.of(NAME, t.companies().toString(), 0, "no company change staged");
    }
    Expression keys = Expressions.in(Dimension.COMPANY_ID.name(), from.keySet().toArray());
    Table dimension = staged.table(t.companies());
    Staged.Change dimensionChange = staged.changes().get(t.companies());
    // the dimension as published: where the staged one is when it did not change, none when it is new since
    Long published = dimensionChange != null ? dimensionChange.publishedSnapshot()
        : dimension.currentSnapshot() == null ? null : dimension.currentSnapshot().snapshotId();
    if (published != null && dimension.snapshot(published) == null) {
      // the published snapshot is gone from the staged table's metadata: check against every logged change
      from.replaceAll((company, time) -> Scd2Since.ALL);
      published = null;
    }
    if (published != null && !promoted.isEmpty() && !hasAll(dimension, published, promoted)) {
      // published before a promotion: its versions lack the attribute the history now tracks (a tag of then reads
      // them so), so they cannot stand for the changes before; check against every logged change instead
      from.replaceAll((company, time) -> Scd2Since.ALL);
      published = null;
    }
    Long at = published;
    List<String> columns = Dimension.version(declared).names();
    // the staged versions and the published ones, from one read of the dimension's files when the staged commits
    // only added files to it (the streams' do); the change log's read meanwhile
    CompletableFuture<DriverReads.Reads> dimensionRead = reads.async(() -> times.time(NAME + " dimension ms",
        () -> at == null
            ? new DriverReads.Reads(DriverReads.readAtOnce(dimension, null, keys, columns, files, budget),
                DriverReads.Read.NONE)
            : dimensionChange == null ? twice(DriverReads.readAtOnce(dimension, null, keys, columns, files, budget))
            : DriverReads.readNowAndAt(dimension, at, keys, columns, files, budget)));
    DriverReads.Read logged = times.time(NAME + " log ms", () -> DriverReads.readAtOnce(
        staged.table(t.companyChanges()), null, logFilter(from), declared.columns().names(), files,
        budget));
    DriverReads.Read stagedVersions = CheckReads.join(dimensionRead).now();
    DriverReads.Read publishedVersions = CheckReads.join(dimensionRead).then();
    List<CompanyChange> changes = new ArrayList<>(Scd2Since.asChanges(versions(publishedVersions, promoted),
        from));
    logged.rows().stream().map(r -> CompanyChange.of(IcebergFields.of(r), promoted))
        .filter(c -> Scd2Since.isFrom(c, from)).forEach(changes::add);
    List<CompanyVersion> versions = versions(stagedVersions, promoted);
    // what the reads' cost follows: files opened (the dimension's data and delete files)
    times.put(NAME + " log files", logged.files());
    times.put(NAME + " dimension files", (long) stagedVersions.files() + stagedVersions.deleteFiles());
    times.put(NAME + " manifests", (long) CheckReads.manifests(staged.table(t.companyChanges()))
        + CheckReads.manifests(dimension));
    long d0 = System.nanoTime();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:")) {
      List<Scd2Invariants.Violation> v = Scd2Invariants.check(db, versions, Optional.of(changes), declared);
      times.put(NAME + " in duckdb", (System.nanoTime() - d0) / 1_000_000);
      return AuditCheck.of(NAME, t.companies().toString(), v.size(), v.isEmpty() ? from.size()
          + " changed companies: one open version, no gap or overlap, equal to the history rebuilt from the "
          + "published versions and the changes since" : v.get(0).toString());
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

  /** Companies past which a per-company filter is no longer worth evaluating row by row. */
  private static final int PER_COMPANY = 200;

  /**
   * The logged changes of each company from its earliest on ({@link Scd2Since}; rows still go through
   * {@link Scd2Since#isFrom}): the change log's files are bounded by company (bucketed) and change time, so files
   * written before the earliest change are not opened.
   */
  static Expression logFilter(Map<String, Long> from) {
    String company = CompanyChanges.COMPANY_ID.name();
    String time = CompanyChanges.CHANGE_TS.name();
    if (from.size() > PER_COMPANY) {
      Expression companies = Expressions.in(company, from.keySet().toArray());
      long earliest = from.values().stream().min(Long::compare).orElseThrow();
      return earliest == Scd2Since.ALL ? companies
          : Expressions.and(companies, Expressions.greaterThanOrEqual(time, earliest));
    }
    Expression any = Expressions.alwaysFalse();
    for (Map.Entry<String, Long> e : from.entrySet()) {
      Expression one = Expressions.equal(company, e.getKey());
      any = Expressions.or(any, e.getValue() == Scd2Since.ALL ? one
          : Expressions.and(one, Expressions.greaterThanOrEqual(time, e.getValue())));
    }
    return any;
  }

  private static List<CompanyVersion> versions(DriverReads.Read read, List<Column> promoted) {
    return read.rows().stream().map(r -> CompanyVersion.of(IcebergFields.of(r), promoted)).toList();
  }

  private static DriverReads.Reads twice(DriverReads.Read read) {
    return new DriverReads.Reads(read, read);
  }
}
