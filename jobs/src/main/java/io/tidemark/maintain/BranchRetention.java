package io.tidemark.maintain;

import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.lakehouse.nessie.NessieRefException;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.projectnessie.model.Branch;
import org.projectnessie.model.Reference;
import org.projectnessie.model.Tag;

/**
 * Deletes the references nobody needs any more. The restatement's working branches ({@code restate-<run>}): their
 * {@code restated-<run>} tags, which point at what was published, stay. The newest {@code keep} branches always
 * stay; beyond them a branch goes once its run is published (it has its tag), and any branch older than
 * {@code maxAge} goes (an audit that failed that long ago will not be put right on it). A branch younger than
 * {@code maxAge} whose run has no tag may be a run in progress: it stays.
 *
 * <p>The {@code rejected-<hash>} tags {@code tidemark publish} leaves on a staged commit that failed its checks
 * ({@link RefNames#REJECTED}) stay while younger than {@code maxAge} (the age of the commit they point at) and go
 * beyond it. They go by age alone, not once the staging branch has been published past them: a tag is the record of
 * what a check refused, worth a look after the fix was published too, and all it costs is the files GC keeps for it.
 * The staging and published branches themselves are never touched.
 */
public final class BranchRetention {
  public record Options(int keep, Duration maxAge, String refPrefix, boolean dryRun) {}

  /** A branch and whether it goes. */
  public record Decision(String branch, String hash, Instant head, boolean tagged, boolean delete, String why) {}

  /** A {@code rejected-*} tag, the time of the commit it points at, and whether it goes. */
  public record TagDecision(String tag, String hash, Instant head, boolean delete, String why) {}

  private final NessieRefs refs;
  private final Clock clock;

  public BranchRetention(NessieRefs refs) {
    this(refs, Clock.systemUTC());
  }

  BranchRetention(NessieRefs refs, Clock clock) {
    this.refs = refs;
    this.clock = clock;
  }

  public List<Decision> run(Options options, Consumer<String> out) {
    String branchPrefix = options.refPrefix() + RefNames.RESTATE;
    String tagPrefix = options.refPrefix() + RefNames.RESTATED;
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
    Instant tooOld = clock.instant().minus(options.maxAge());
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

  /** Deletes the {@code rejected-*} tags whose commit is older than {@code maxAge}; younger ones stay. */
  public List<TagDecision> rejected(Options options, Consumer<String> out) {
    Instant tooOld = clock.instant().minus(options.maxAge());
    List<TagDecision> decisions = new ArrayList<>();
    for (Reference r : allReferences()) {
      if (r instanceof Tag t && t.getName().startsWith(RefNames.REJECTED)) {
        Instant head = headTime(t);
        boolean delete = head.isBefore(tooOld);
        decisions.add(new TagDecision(t.getName(), t.getHash(), head, delete, delete ? "older than "
            + io.tidemark.config.Durations.show(options.maxAge()) : "younger than "
            + io.tidemark.config.Durations.show(options.maxAge()) + ": kept for inspection"));
      }
    }
    decisions.sort(Comparator.comparing(TagDecision::head).reversed());
    for (TagDecision d : decisions) {
      if (d.delete() && !options.dryRun()) {
        deleteTag(d.tag(), d.hash());
      }
      out.accept((d.delete() ? (options.dryRun() ? "would delete " : "deleted ") : "kept ") + d.tag() + " (commit of "
          + d.head() + ", " + d.why() + ")");
    }
    if (decisions.isEmpty()) {
      out.accept("no " + RefNames.REJECTED + "* tags: no staged arrival was refused");
    }
    return decisions;
  }

  private Instant headTime(Reference b) {
    return refs.commitTime(b);
  }

  private void delete(String name, String hash) {
    try {
      // deletes exactly the head we decided on: a branch that moved meanwhile is in use, and the delete fails
      refs.deleteBranchAt(name, hash);
    } catch (NessieRefException e) {
      throw new MaintenanceException(e.getMessage());
    }
  }

  private void deleteTag(String name, String hash) {
    try {
      refs.deleteTagAt(name, hash);
    } catch (NessieRefException e) {
      throw new MaintenanceException(e.getMessage());
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
