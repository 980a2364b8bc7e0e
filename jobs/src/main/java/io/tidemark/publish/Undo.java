package io.tidemark.publish;

import io.tidemark.lakehouse.nessie.NessieRefs;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.IcebergTable;
import org.projectnessie.model.LogResponse.LogEntry;
import org.projectnessie.model.Operation;

/**
 * The one way tidemark undoes a commit, as a command a person runs: the branch put back on the commit before it, by
 * its whole hash ({@code tidemark sql "ASSIGN BRANCH ingest TO ingest AT <hash> IN nessie"}), saying what else that
 * drops. Nessie keeps every commit, so nothing is lost for good, but a stream's commit dropped so is still in its
 * checkpoint and is not written again: the command then points at the recipe that says what to do about it.
 */
final class Undo {
  /** Hash digits shown where a whole hash is not needed (what `tidemark log` shows, and `tidemark sql` takes). */
  static final int SHORT = 12;

  /** A commit of a branch: its hash, its parent's, who made it, its first line, and whether a job's stream made it. */
  record Commit(String hash, String parent, String author, String message, boolean stream) {
    String shortly() {
      return hash.substring(0, Math.min(SHORT, hash.length())) + " (" + author + ": " + message + ")";
    }
  }

  /** Where a branch goes back to, and what it drops on the way: the commits from the newest back to the undone one. */
  record Plan(String branch, Commit undone, List<Commit> after) {
    /** The command, and what it drops, as the lines a refusal prints. */
    List<String> lines() {
      List<String> out = new ArrayList<>();
      out.add("  tidemark sql \"ASSIGN BRANCH " + branch + " TO " + branch + " AT " + undone.parent() + " IN nessie\"");
      out.add("    (takes off " + undone.shortly() + (after.isEmpty() ? "" : " and the " + after.size()
          + " commit(s) after it") + ")");
      if (after.stream().anyMatch(Commit::stream)) {
        out.add("    streams committed after it: their commits would be dropped too, see "
            + "docs/troubleshooting.md#undo-a-commit first");
      }
      return out;
    }
  }

  private Undo() {}

  /**
   * The plan that takes off the oldest commit of {@code branch} between {@code base} (excluded) and {@code head} that
   * {@code which} picks; empty when none does.
   */
  static java.util.Optional<Plan> oldest(NessieRefs refs, String branch, String head, String base,
                                         Predicate<LogEntry> which) {
    return oldest(refs, branch, head, m -> m.getHash().equals(base), which);
  }

  /** The same, back to (not including) the newest commit {@code stop} picks. */
  static java.util.Optional<Plan> oldest(NessieRefs refs, String branch, String head, Predicate<CommitMeta> stop,
                                         Predicate<LogEntry> which) {
    List<Commit> newer = new ArrayList<>();
    List<Commit> seen = new ArrayList<>();
    Commit undone = null;
    try {
      for (LogEntry e : (Iterable<LogEntry>) refs.logWithOperations(branch, head)::iterator) {
        CommitMeta m = e.getCommitMeta();
        if (stop.test(m)) {
          break;
        }
        Commit c = commit(e);
        if (which.test(e)) {
          undone = c;
          newer = new ArrayList<>(seen);
        }
        seen.add(c);
      }
    } catch (NessieNotFoundException e) {
      return java.util.Optional.empty();
    }
    return undone == null || undone.parent() == null ? java.util.Optional.empty()
        : java.util.Optional.of(new Plan(branch, undone, newer));
  }

  /** A commit that put one of {@code snapshots} into a table (the content keys {@code keys}). */
  static Predicate<LogEntry> putsSnapshot(Set<String> keys, Set<Long> snapshots) {
    return e -> e.getOperations() != null && e.getOperations().stream().anyMatch(op -> op instanceof Operation.Put put
        && keys.contains(put.getKey().toString()) && put.getContent() instanceof IcebergTable t
        && snapshots.contains(t.getSnapshotId()));
  }

  /** A commit that changed one of the content {@code keys}. */
  static Predicate<LogEntry> touches(Set<String> keys) {
    return e -> e.getOperations() != null && e.getOperations().stream()
        .anyMatch(op -> keys.contains(op.getKey().toString()));
  }

  private static Commit commit(LogEntry e) {
    CommitMeta m = e.getCommitMeta();
    String parent = m.getParentCommitHashes().isEmpty() ? e.getParentCommitHash() : m.getParentCommitHashes().get(0);
    String author = m.getAuthor() == null ? "" : m.getAuthor().replaceAll(" \\[.*", "");
    return new Commit(m.getHash(), parent, author, m.getMessage() == null ? "" : m.getMessage().lines().findFirst()
        .orElse(""), author.startsWith("tidemark-stream/"));
  }
}
