package io.tidemark.publish;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.stream.StreamSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Snapshot;

/**
 * The commands that release a refused publish, as a refusal prints them: the recipe of docs/troubleshooting.md for
 * its check, with this refusal's names and whole hashes put in, so that a person copies them rather than looks them up.
 */
final class Releases {
  private Releases() {}

  /** The lines after "release it": one command a line, indented, with what it does when that is not plain. */
  static List<String> of(String check, Staged staged, NessieRefs refs, TidemarkConfig config) {
    String staging = config.stagingBranch();
    Pipeline pipeline = config.pipeline();
    List<String> out = new ArrayList<>();
    switch (check) {
      case StagedWriters.NAME -> {
        Set<String> keys = new HashSet<>();
        Set<Long> snapshots = new HashSet<>();
        Set<Snapshot> foreign = StagedWriters.foreign(staged, pipeline).keySet();
        staged.changes().forEach((table, c) -> c.snapshots().stream().filter(foreign::contains).forEach(s -> {
          keys.add(Staged.key(table).toString());
          snapshots.add(s.snapshotId());
        }));
        Optional<Undo.Plan> undo = Undo.oldest(refs, staging, staged.stagedHash(), staged.publishedHash(),
            Undo.putsSnapshot(keys, snapshots));
        undo.ifPresent(p -> out.addAll(p.lines()));
      }
      case Scd2OfChangedKeys.NAME -> {
        // the SCD2 stream on a new checkpoint reads every change again and writes what the dimension lacks or has
        // wrongly, as the difference to the rebuild from the change log (a job's wrong write; a hand-made one is
        // refused by staged-writers first, and taken off)
        for (StreamDef d : pipeline.streams()) {
          if (d.kind() == StreamDef.Kind.SCD2 && staged.changes().containsKey(d.table())) {
            String checkpoint = StreamSpec.of(d, config).checkpoint();
            out.add(checkpoint.contains("://") ? "  move " + checkpoint + " aside (to " + checkpoint
                + ".before-rebuild)" : "  mv " + checkpoint + " " + checkpoint + ".before-rebuild");
            out.add("  tidemark stream " + d.name());
          }
        }
      }
      case WindowsFinal.NAME -> {
        for (Aggregate a : pipeline.aggregates()) {
          TableName counts = a.table();
          Set<String> keys = Set.of(Staged.key(counts).toString());
          Staged.Change c = staged.changes().get(counts);
          if (c != null && !c.snapshots().isEmpty()) {
            // the newest commit: the stream appends a window once, so the one written again is the last
            Set<Long> newest = Set.of(c.snapshots().get(c.snapshots().size() - 1).snapshotId());
            Undo.oldest(refs, staging, staged.stagedHash(), staged.publishedHash(), Undo.putsSnapshot(keys, newest))
                .ifPresent(p -> out.addAll(p.lines()));
          }
        }
        out.add("  tidemark stream all");
      }
      case SameArrivals.NAME -> out.add("  tidemark stream all");
      case ExpectationsMet.NAME -> {
        // the held lines are in the quarantine with the expectation as their reason: fixed, they land again as a
        // correction, which judged and kept releases the arrival (a changed rule judges from the next arrival only)
        out.add("  tidemark sql \"SELECT " + io.tidemark.core.Quarantine.LINE + " FROM " + pipeline.shared().rejected()
            + "@" + staging + " WHERE " + io.tidemark.core.Quarantine.REASON + " LIKE '"
            + io.tidemark.pipeline.Expectation.HELD_REASONS + "'\" > held.jsonl");
        out.add("  fix held.jsonl (or change the rule in the pipeline file through review, then tidemark bootstrap),"
            + " then land it as a correction:");
        out.add("  tidemark land --from held.jsonl --feed <feed>");
        out.add("  tidemark stream all");
      }
      case LinesAccounted.NAME -> {
        Feed first = pipeline.feeds().get(0);
        out.add("  put the file back as the raw archive of its feed read it (tidemark sql \"SELECT * FROM "
            + first.raw().table() + "@" + staging + " WHERE " + io.tidemark.core.Ingest.SOURCE_FILE
            + " = '<file>'\" for " + first.name() + "), then land the new lines as an arrival of their own:");
        out.add("  tidemark land --from new-lines.jsonl --feed " + first.name());
        out.add("  tidemark stream all");
      }
      default -> {
        return out;
      }
    }
    out.add("  tidemark publish");
    return out;
  }
}
