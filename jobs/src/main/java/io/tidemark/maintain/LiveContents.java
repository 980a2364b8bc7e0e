package io.tidemark.maintain;

import io.tidemark.lakehouse.nessie.NessieRefException;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.Content;
import org.projectnessie.model.EntriesResponse;
import org.projectnessie.model.IcebergTable;
import org.projectnessie.model.IcebergView;
import org.projectnessie.model.LogResponse.LogEntry;
import org.projectnessie.model.Operation;
import org.projectnessie.model.Reference;

/**
 * The mark phase's first half, as Nessie GC does it: every table version that a live commit of any branch or tag
 * holds. A commit is live when it is a reference's head, is newer than the cutoff, or is the newest commit at the
 * cutoff (the state a reader of "as of the cutoff" sees). Per reference that is the contents at that boundary
 * commit plus every content put by a commit after it; keys deleted after the boundary are kept too (more than
 * needed, never less).
 */
public final class LiveContents {
  /** A table version: its metadata file and the snapshot the commit points at. */
  public record TableVersion(String metadataLocation, long snapshotId) {}

  /** What the mark found: table versions, view metadata files, and the references and commits walked. */
  public record Found(Set<TableVersion> tables, Set<String> viewMetadata, List<String> references, int commits) {}

  private final NessieRefs refs;

  public LiveContents(NessieRefs refs) {
    this.refs = refs;
  }

  public Found collect(Instant cutoff, Consumer<String> progress) {
    Set<TableVersion> tables = new LinkedHashSet<>();
    Set<String> views = new LinkedHashSet<>();
    List<Reference> all = allReferences();
    int commits = 0;
    for (Reference ref : all) {
      int walked = 0;
      String boundary = null;
      try {
        var log = refs.logWithOperations(ref.getName(), ref.getHash()).iterator();
        while (log.hasNext()) {
          LogEntry e = log.next();
          walked++;
          Instant t = e.getCommitMeta().getCommitTime();
          // the head is live whatever its age; so is the newest commit at the cutoff
          if (t != null && t.isBefore(cutoff)) {
            boundary = e.getCommitMeta().getHash();
            break;
          }
          if (e.getOperations() != null) {
            for (Operation op : e.getOperations()) {
              if (op instanceof Operation.Put put) {
                add(put.getContent(), tables, views, ref.getName());
              }
            }
          }
        }
        if (boundary != null) {
          for (EntriesResponse.Entry entry : refs.entries(ref.getName(), boundary)) {
            add(entry.getContent(), tables, views, ref.getName());
          }
        }
      } catch (NessieNotFoundException e) {
        // deleted while we walked: its commits are no longer reachable through it
        progress.accept("reference " + ref.getName() + " went away during the mark; skipped");
        continue;
      }
      commits += walked;
      progress.accept("mark: " + ref.getName() + " (" + (ref instanceof org.projectnessie.model.Branch ? "branch"
          : "tag") + "): " + walked + " commits walked");
    }
    return new Found(tables, views, all.stream().map(Reference::getName).toList(), commits);
  }

  private static void add(Content c, Set<TableVersion> tables, Set<String> views, String ref) {
    if (c == null) {
      throw new MaintenanceException("gc: Nessie returned an entry without its content on " + ref
          + "; refusing to sweep");
    }
    if (c instanceof IcebergTable t) {
      tables.add(new TableVersion(t.getMetadataLocation(), t.getSnapshotId()));
    } else if (c instanceof IcebergView v) {
      views.add(v.getMetadataLocation());
    } else if (c.getType() != Content.Type.NAMESPACE) {
      // a kind of content whose files we cannot enumerate: deleting around it could break it
      throw new MaintenanceException("gc: " + ref + " holds content of type " + c.getType()
          + ", whose files tidemark cannot enumerate; refusing to sweep");
    }
  }

  private List<Reference> allReferences() {
    try {
      return refs.references();
    } catch (NessieRefException e) {
      throw new MaintenanceException(e.getMessage(), e);
    }
  }
}
