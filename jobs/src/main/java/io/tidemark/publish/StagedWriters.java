package io.tidemark.publish;

import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.core.CommitKeys;
import java.util.ArrayList;
import java.util.List;
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
    Pipeline p = reads.pipeline();
    // every table a stream writes but the SCD2 dimensions, which a batch updates; and the batch record
    Set<TableName> appendOnly = new java.util.HashSet<>(Set.of(p.shared().rejected(), p.shared().streamBatches()));
    for (StreamDef s : p.streams()) {
      if (s.kind() != StreamDef.Kind.SCD2) {
        appendOnly.addAll(s.tables(p.shared()));
      } else {
        appendOnly.add(s.tables(p.shared()).get(0));
      }
    }
    List<String> bad = new ArrayList<>();
    int seen = 0;
    for (Staged.Change c : staged.changes().values()) {
      for (Snapshot s : c.snapshots()) {
        seen++;
        String stream = s.summary().get(CommitKeys.STREAM);
        if (DataOperations.REPLACE.equals(s.operation())) {
          continue; // compaction: the same rows in other files
        }
        if (stream == null) {
          bad.add(c.name() + " snapshot " + s.snapshotId() + " (" + s.operation() + ") made by none of tidemark's jobs");
        } else if (!CommitKeys.RESTATEMENT_STREAM.equals(stream) && !CommitKeys.EVOLVE_STREAM.equals(stream)
            && appendOnly.contains(c.name())
            && !DataOperations.APPEND.equals(s.operation())) {
          bad.add(c.name() + " snapshot " + s.snapshotId() + ": stream " + stream + " did " + s.operation()
              + ", it only appends");
        }
      }
    }
    return AuditCheck.of(NAME, "staged tables", bad.size(), bad.isEmpty()
        ? seen + " staged snapshot(s), all by the streams, the restatement, evolve or compaction" : CheckReads.first(bad));
  }
}
