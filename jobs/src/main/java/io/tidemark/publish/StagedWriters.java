package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.core.CommitKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;

/**
 * Every staged snapshot was made by a stream, the restatement, {@code tidemark evolve} or compaction, and a stream's
 * snapshot of an append-only table only appends: a row written or deleted by hand on the staging branch fails. The
 * restatement and evolve rewrite rows of those tables (corrections, a promoted column's backfill), audited by
 * themselves before they reach the staging branch.
 */
final class StagedWriters extends ArrivalCheck {
  static final String NAME = "staged-writers";

  StagedWriters() {
    super(NAME);
  }

  @Override
  AuditCheck run(Staged staged, CheckReads reads) {
    Map<Snapshot, String> bad = foreign(staged, reads.pipeline());
    int seen = staged.changes().values().stream().mapToInt(c -> c.snapshots().size()).sum();
    return AuditCheck.of(NAME, "staged tables", bad.size(), bad.isEmpty()
        ? seen + " staged snapshot(s), all by the streams, the restatement, evolve or compaction"
        : CheckReads.first(List.copyOf(bad.values())));
  }

  /**
   * The staged snapshots none of tidemark's jobs made, or a stream's that did more than append to an append-only
   * table, each with what is wrong with it; in the order they were staged, table by table.
   */
  static Map<Snapshot, String> foreign(Staged staged, Pipeline p) {
    // every table a stream writes but the SCD2 dimensions, which a batch updates; and the batch record
    Set<TableName> appendOnly = new java.util.HashSet<>(Set.of(p.shared().rejected(), p.shared().streamBatches()));
    for (StreamDef s : p.streams()) {
      if (s.kind() != StreamDef.Kind.SCD2) {
        appendOnly.addAll(s.tables(p.shared()));
      } else {
        appendOnly.add(s.tables(p.shared()).get(0));
      }
    }
    Map<Snapshot, String> bad = new LinkedHashMap<>();
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        String stream = s.summary().get(CommitKeys.STREAM);
        if (DataOperations.REPLACE.equals(s.operation())) {
          continue; // compaction: the same rows in other files
        }
        if (stream == null) {
          bad.put(s, c.name() + " snapshot " + s.snapshotId() + " (" + s.operation() + ") made by none of tidemark's "
              + "jobs");
        } else if (!CommitKeys.RESTATEMENT_STREAM.equals(stream) && !CommitKeys.EVOLVE_STREAM.equals(stream)
            && appendOnly.contains(c.name())
            && !DataOperations.APPEND.equals(s.operation())) {
          bad.put(s, c.name() + " snapshot " + s.snapshotId() + ": stream " + stream + " did " + s.operation()
              + ", it only appends");
        }
      }
    }
    return bad;
  }
}
