package io.tidemark.stream;

import io.tidemark.core.Column;
import io.tidemark.core.CompanyChange;
import io.tidemark.core.CompanyChanges;
import io.tidemark.core.CompanyVersion;
import io.tidemark.core.Dimension;
import io.tidemark.core.FeedSchema;
import io.tidemark.core.Scd2Difference;
import io.tidemark.core.Scd2History;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Company changes applied to the SCD2 dimension on the driver, for the few changes of a small stream batch or of a
 * restatement: the companies' rows of the change log and the dimension are read once (Iceberg's readers, no Spark
 * job), the history and its difference from the dimension worked out by the core's rules ({@link Scd2History},
 * {@link Scd2Difference}), and both commits written here too (see {@link DriverWrites}): the changes the log lacks
 * appended to it, and the dimension's difference as position deletes of the versions it replaces or removes plus the
 * new versions, validated like a MERGE against the snapshot the versions were read from. Three reads and two writes
 * instead of the dozen Spark jobs whose fixed costs would be most of the time.
 */
public final class Scd2OnDriver implements Scd2Apply<List<CompanyChange>> {
  /** A few MB of rows: no budget worth a Spark job for the rows of the touched companies. */
  private static final long READ_BUDGET = Long.MAX_VALUE;
  /** Commits of the dimension's difference, each settled again on the dimension as a concurrent commit left it. */
  private static final int ATTEMPTS = 5;

  private final Table log;
  private final Table dimension;
  private final FeedSchema companies;

  /** The change log and the dimension, as loaded: what the commits start from. */
  public Scd2OnDriver(Table log, Table dimension) {
    this(log, dimension, CompanyChanges.FEED);
  }

  /**
   * The same for the companies as declared when the job runs ({@code companies}): a promoted attribute is read,
   * logged and tracked as the name is (the promotion added it to both tables).
   */
  public Scd2OnDriver(Table log, Table dimension, FeedSchema companies) {
    this.log = log;
    this.dimension = dimension;
    this.companies = companies;
  }

  @Override
  public Applied apply(List<CompanyChange> changes, Commits commits) {
    Expression touched = Expressions.in(Dimension.COMPANY_ID.name(),
        changes.stream().map(CompanyChange::companyId).distinct().toArray());
    List<CompanyChange> logged = logged(log, touched, companies);
    Versions versions = Versions.read(dimension, touched, companies);
    Set<CompanyChange> applied = Set.copyOf(logged);
    // a change repeated, or already in the log, is applied once
    List<CompanyChange> fresh = changes.stream().distinct().filter(c -> !applied.contains(c)).toList();
    commits.toLog(fresh.size(), props -> DriverWrites.append(log, companies.columns(),
        fresh.stream().map(CompanyChange::values).toList(), props));
    // the log after the append holds exactly logged + fresh
    List<CompanyChange> history = new ArrayList<>(logged);
    history.addAll(fresh);
    Difference diff = Difference.of(versions, history);
    commits.toDimension(diff.changes.size(), props -> commit(log, dimension, touched, diff, props, companies));
    return new Applied(fresh.size(), diff.changes.size());
  }

  /**
   * Commits the difference; when a commit since its read rewrote or deleted the touched companies' rows (compaction
   * rewriting the dimension's files while a stream batch runs, a restatement merged into the branch), it is settled
   * again from the log and the dimension as they are now, as a MERGE would be run again: the dimension is a function
   * of the log, so the retry writes what is still missing, and nothing when another writer already did.
   */
  private static void commit(Table log, Table dimension, Expression touched, Difference diff,
                             Map<String, String> props, FeedSchema companies) {
    for (int attempt = 1; ; attempt++) {
      try {
        diff.commit(dimension, touched, props, companies);
        return;
      } catch (ValidationException e) {
        if (attempt >= ATTEMPTS) {
          throw new StreamException("the SCD2 dimension " + dimension.name() + " changed under " + attempt
              + " attempts to apply a batch (" + io.tidemark.TidemarkException.firstLine(e)
              + "): rerun the stream; it picks up the batch where it stopped", e);
        }
        log.refresh();
        dimension.refresh();
        diff = Difference.of(Versions.read(dimension, touched, companies), logged(log, touched, companies));
      }
    }
  }

  private static List<CompanyChange> logged(Table log, Expression touched, FeedSchema companies) {
    List<Column> promoted = companies.beyond(CompanyChanges.FEED);
    return DriverReads.read(log, null, touched, companies.columns().names(), false, READ_BUDGET)
        .stream().map(r -> CompanyChange.of(IcebergFields.of(r), promoted)).toList();
  }

  /** The touched companies' versions in the dimension at one snapshot, with the position of each. */
  private record Versions(Long readAt, List<CompanyVersion> current,
                          Map<CompanyVersion.Key, DriverWrites.Position> at) {
    static Versions read(Table dimension, Expression touched, FeedSchema companies) {
      List<Column> promoted = companies.beyond(CompanyChanges.FEED);
      Snapshot snapshot = dimension.currentSnapshot();
      Long readAt = snapshot == null ? null : snapshot.snapshotId();
      Map<CompanyVersion.Key, DriverWrites.Position> at = new HashMap<>();
      List<CompanyVersion> current = new ArrayList<>();
      if (readAt != null) {
        for (Record r : DriverReads.read(dimension, readAt, touched, Dimension.version(companies).names(), true,
            READ_BUDGET)) {
          CompanyVersion version = CompanyVersion.of(IcebergFields.of(r), promoted);
          current.add(version);
          at.put(version.key(), new DriverWrites.Position((String) r.getField(DriverReads.FILE),
              (Long) r.getField(DriverReads.POS)));
        }
      }
      return new Versions(readAt, current, at);
    }
  }

  /** The difference of the versions from the history rebuilt from {@code history} (the touched companies' log). */
  private record Difference(Versions versions, List<Scd2Difference.Change> changes) {
    static Difference of(Versions versions, List<CompanyChange> history) {
      return new Difference(versions, Scd2Difference.of(Scd2History.rebuild(history), versions.current()));
    }

    /**
     * MERGE's rules: a version keyed on (company_id, valid_from) is replaced when it is in the difference, removed
     * when marked so; an upsert is written anew.
     */
    void commit(Table dimension, Expression touched, Map<String, String> props, FeedSchema companies) {
      List<DriverWrites.Position> removed = changes.stream().map(c -> versions.at().get(c.version().key()))
          .filter(Objects::nonNull).toList();
      List<List<Object>> added = changes.stream().filter(Scd2Difference.Change::upsert)
          .map(c -> c.version().values()).collect(Collectors.toList());
      DriverWrites.replace(dimension, versions.readAt(), removed, Dimension.version(companies), added, touched,
          props);
    }
  }
}
