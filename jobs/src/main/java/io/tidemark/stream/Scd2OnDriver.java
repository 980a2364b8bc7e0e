package io.tidemark.stream;

import io.tidemark.core.Change;
import io.tidemark.core.DimensionSchema;
import io.tidemark.core.Scd2Difference;
import io.tidemark.core.Scd2History;
import io.tidemark.core.Version;
import io.tidemark.lakehouse.tables.DriverReads;
import io.tidemark.lakehouse.tables.DriverWrites;
import io.tidemark.lakehouse.tables.IcebergFields;
import io.tidemark.lakehouse.tables.KeyFilters;
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

/**
 * Dimension changes applied to an SCD2 dimension on the driver, for the few changes of a small stream batch or of a
 * restatement: the keys' rows of the change log and the dimension are read once (Iceberg's readers, no Spark job),
 * the history and its difference from the dimension worked out by the core's rules ({@link Scd2History},
 * {@link Scd2Difference}), and both commits written here too (see {@link DriverWrites}): the changes the log lacks
 * appended to it, and the dimension's difference as position deletes of the versions it replaces or removes plus the
 * new versions, validated like a MERGE against the snapshot the versions were read from. Three reads and two writes
 * instead of the dozen Spark jobs whose fixed costs would be most of the time.
 */
public final class Scd2OnDriver implements Scd2Apply<List<Change>> {
  /** A few MB of rows: no budget worth a Spark job for the rows of the touched keys. */
  private static final long READ_BUDGET = Long.MAX_VALUE;
  /** Commits of the dimension's difference, each settled again on the dimension as a concurrent commit left it. */
  private static final int ATTEMPTS = 5;

  private final Table log;
  private final Table dimension;
  private final DimensionSchema d;

  /**
   * The change log and the dimension, as loaded (what the commits start from), for the dimension as declared when the
   * job runs ({@code d}): a promoted attribute is read, logged and tracked (the promotion added it to both tables).
   */
  public Scd2OnDriver(Table log, Table dimension, DimensionSchema d) {
    this.log = log;
    this.dimension = dimension;
    this.d = d;
  }

  @Override
  public Applied apply(List<Change> changes, Commits commits) {
    Touched touched = new Touched(d, changes.stream().map(Change::key).collect(Collectors.toSet()));
    List<Change> logged = logged(log, touched, d);
    Versions versions = Versions.read(dimension, touched, d);
    Set<Change> applied = Set.copyOf(logged);
    // a change repeated, or already in the log, is applied once
    List<Change> fresh = changes.stream().distinct().filter(c -> !applied.contains(c)).toList();
    commits.toLog(fresh.size(), props -> DriverWrites.append(log, d.logged(),
        fresh.stream().map(d::logRow).toList(), props));
    // the log after the append holds exactly logged + fresh
    List<Change> history = new ArrayList<>(logged);
    history.addAll(fresh);
    Difference diff = Difference.of(versions, history);
    commits.toDimension(diff.steps.size(), props -> commit(log, dimension, touched, diff, props, d));
    return new Applied(fresh.size(), diff.steps.size());
  }

  /** The keys a batch touches, and the filter that reads their rows (a superset for a composite key). */
  private record Touched(Set<List<Object>> keys, Expression filter) {
    Touched(DimensionSchema d, Set<List<Object>> keys) {
      this(keys, KeyFilters.of(d.key(), keys));
    }
  }

  /**
   * Commits the difference; when a commit since its read rewrote or deleted the touched keys' rows (compaction
   * rewriting the dimension's files while a stream batch runs, a restatement merged into the branch), it is settled
   * again from the log and the dimension as they are now, as a MERGE would be run again: the dimension is a function
   * of the log, so the retry writes what is still missing, and nothing when another writer already did.
   */
  private static void commit(Table log, Table dimension, Touched touched, Difference diff,
                             Map<String, String> props, DimensionSchema d) {
    for (int attempt = 1; ; attempt++) {
      try {
        diff.commit(dimension, touched.filter(), props, d);
        return;
      } catch (ValidationException e) {
        if (attempt >= ATTEMPTS) {
          throw new StreamException("the SCD2 dimension " + dimension.name() + " changed under " + attempt
              + " attempts to apply a batch (" + io.tidemark.TidemarkException.firstLine(e)
              + "): rerun the stream; it picks up the batch where it stopped", e);
        }
        log.refresh();
        dimension.refresh();
        diff = Difference.of(Versions.read(dimension, touched, d), logged(log, touched, d));
      }
    }
  }

  private static List<Change> logged(Table log, Touched touched, DimensionSchema d) {
    return DriverReads.read(log, null, touched.filter(), d.logged().names(), false, READ_BUDGET)
        .stream().map(r -> d.change(IcebergFields.of(r))).filter(c -> touched.keys().contains(c.key())).toList();
  }

  /** The touched keys' versions in the dimension at one snapshot, with the position of each. */
  private record Versions(Long readAt, List<Version> current, Map<Version.Id, DriverWrites.Position> at) {
    static Versions read(Table dimension, Touched touched, DimensionSchema d) {
      Snapshot snapshot = dimension.currentSnapshot();
      Long readAt = snapshot == null ? null : snapshot.snapshotId();
      Map<Version.Id, DriverWrites.Position> at = new HashMap<>();
      List<Version> current = new ArrayList<>();
      if (readAt != null) {
        for (Record r : DriverReads.read(dimension, readAt, touched.filter(), d.version().names(), true,
            READ_BUDGET)) {
          Version version = d.versionOf(IcebergFields.of(r));
          if (touched.keys().contains(version.key())) {
            current.add(version);
            at.put(version.id(), new DriverWrites.Position((String) r.getField(DriverReads.FILE),
                (Long) r.getField(DriverReads.POS)));
          }
        }
      }
      return new Versions(readAt, current, at);
    }
  }

  /** The difference of the versions from the history rebuilt from {@code history} (the touched keys' log). */
  private record Difference(Versions versions, List<Scd2Difference.Step> steps) {
    static Difference of(Versions versions, List<Change> history) {
      return new Difference(versions, Scd2Difference.of(Scd2History.rebuild(history), versions.current()));
    }

    /**
     * MERGE's rules: a version keyed on (key, valid_from) is replaced when it is in the difference, removed when
     * marked so; an upsert is written anew.
     */
    void commit(Table dimension, Expression touched, Map<String, String> props, DimensionSchema d) {
      List<DriverWrites.Position> removed = steps.stream().map(c -> versions.at().get(c.version().id()))
          .filter(Objects::nonNull).toList();
      List<List<Object>> added = steps.stream().filter(Scd2Difference.Step::upsert)
          .map(c -> c.version().values()).collect(Collectors.toList());
      DriverWrites.replace(dimension, versions.readAt(), removed, d.version(), added, touched, props);
    }
  }
}
