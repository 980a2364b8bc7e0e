package io.tidemark.maintain;

import io.tidemark.restate.Restatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.projectnessie.client.api.NessieApiV2;
import org.projectnessie.error.NessieConflictException;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.Branch;
import org.projectnessie.model.Reference;
import org.projectnessie.model.Tag;

/**
 * Deletes the restatement's working branches ({@code restate-<run>}) that are no longer needed; their
 * {@code restated-<run>} tags, which point at what was published, stay. The newest {@code keep} branches always
 * stay; beyond them a branch goes once its run is published (it has its tag), and any branch older than
 * {@code maxAge} goes (an audit that failed that long ago will not be put right on it). A branch younger than
 * {@code maxAge} whose run has no tag may be a run in progress: it stays.
 */
public final class BranchRetention {
  public record Options(int keep, Duration maxAge, String refPrefix, boolean dryRun) {}

  /** A branch and whether it goes. */
  public record Decision(String branch, String hash, Instant head, boolean tagged, boolean delete, String why) {}

  private final NessieApiV2 api;

  public BranchRetention(NessieApiV2 api) {
    this.api = api;
  }

  public List<Decision> run(Options options, Consumer<String> out) {
    String branchPrefix = options.refPrefix() + Restatement.BRANCH;
    String tagPrefix = options.refPrefix() + Restatement.TAG;
    List<Reference> refs = allReferences();
    Set<String> tags = refs.stream().filter(r -> r instanceof Tag).map(Reference::getName).collect(Collectors.toSet());
    List<Decision> candidates = new ArrayList<>();
    for (Reference r : refs) {
      if (r instanceof Branch b && b.getName().startsWith(branchPrefix)) {
        String run = b.getName().substring(branchPrefix.length());
        candidates.add(new Decision(b.getName(), b.getHash(), headTime(b), tags.contains(tagPrefix + run), false, ""));
      }
    }
    candidates.sort(Comparator.comparing(Decision::head).reversed());
    Instant tooOld = Instant.now().minus(options.maxAge());
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      Decision d = candidates.get(i);
      String why;
      boolean delete;
      if (d.head().isBefore(tooOld)) {
        delete = true;
        why = "older than " + io.tidemark.config.Durations.show(options.maxAge());
      } else if (i >= options.keep() && d.tagged()) {
        delete = true;
        why = "published (tagged) and beyond the newest " + options.keep();
      } else {
        delete = false;
        why = i < options.keep() ? "among the newest " + options.keep() : "not tagged yet (a run in progress?)";
      }
      decisions.add(new Decision(d.branch(), d.hash(), d.head(), d.tagged(), delete, why));
    }
    for (Decision d : decisions) {
      if (d.delete() && !options.dryRun()) {
        delete(d.branch(), d.hash());
      }
      out.accept((d.delete() ? (options.dryRun() ? "would delete " : "deleted ") : "kept ") + d.branch() + " (head "
          + d.head() + ", " + d.why() + (d.tagged() ? "; its tag stays" : "") + ")");
    }
    if (decisions.isEmpty()) {
      out.accept("no " + branchPrefix + "* branches");
    }
    return decisions;
  }

  private Instant headTime(Branch b) {
    try {
      var log = api.getCommitLog().refName(b.getName()).hashOnRef(b.getHash()).maxRecords(1).get();
      return log.getLogEntries().stream().findFirst().map(e -> e.getCommitMeta().getCommitTime())
          .orElse(Instant.EPOCH);
    } catch (NessieNotFoundException e) {
      return Instant.EPOCH;
    }
  }

  private void delete(String name, String hash) {
    try {
      // deletes exactly the head we decided on: a branch that moved meanwhile is in use, and the delete fails
      api.deleteBranch().branch(Branch.of(name, hash)).delete();
    } catch (NessieNotFoundException e) {
      // already gone: what we wanted
    } catch (NessieConflictException e) {
      throw new MaintenanceException("cannot delete branch " + name + ": " + e.getMessage());
    }
  }

  private List<Reference> allReferences() {
    try {
      return api.getAllReferences().stream().toList();
    } catch (NessieNotFoundException e) {
      throw new MaintenanceException("cannot list the Nessie references: " + e.getMessage(), e);
    }
  }
}
