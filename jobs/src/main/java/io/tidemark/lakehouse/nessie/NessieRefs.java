package io.tidemark.lakehouse.nessie;

import io.tidemark.services.Endpoints;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.projectnessie.client.NessieClientBuilder;
import org.projectnessie.client.api.NessieApiV2;
import org.projectnessie.error.NessieConflictException;
import org.projectnessie.error.NessieNotFoundException;
import org.projectnessie.model.Branch;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.Content;
import org.projectnessie.model.ContentKey;
import org.projectnessie.model.EntriesResponse;
import org.projectnessie.model.FetchOption;
import org.projectnessie.model.LogResponse;
import org.projectnessie.model.LogResponse.LogEntry;
import org.projectnessie.model.MergeResponse;
import org.projectnessie.model.Operation;
import org.projectnessie.model.Reference;
import org.projectnessie.model.Tag;

/**
 * Nessie for tidemark: branches, merges and tags, marks, logs and contents, through the Nessie Java client (the one
 * inside Iceberg's Spark runtime, the server's version), with the commit metadata that explains each step in the
 * Nessie log and UI. The only place a Nessie client is made; none is handed out.
 */
public final class NessieRefs implements AutoCloseable {
  /** The key the content-free marks assert unchanged: a name no table uses (a table's has a namespace). */
  private static final String MARK_KEY = "tidemark_marks";
  private final NessieApiV2 api;

  public NessieRefs(Endpoints endpoints) {
    // a connection closed, a timeout, a 503: absorbed, and a change whose answer was lost looked for before it is made
    // again ({@link ResilientNessie})
    this.api = ResilientNessie.wrap(NessieClientBuilder.createClientBuilderFromSystemSettings()
        .withUri(endpoints.nessieApi())
        .build(NessieApiV2.class));
  }

  /** The head of a branch. */
  public Branch branch(String name) {
    try {
      Reference r = api.getReference().refName(name).get();
      if (!(r instanceof Branch b)) {
        throw new NessieRefException(name + " is not a branch");
      }
      return b;
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("no branch " + name + " in Nessie");
    }
  }

  public boolean exists(String name) {
    try {
      api.getReference().refName(name).get();
      return true;
    } catch (NessieNotFoundException e) {
      return false;
    }
  }

  /**
   * The branch {@code name}, made at the head of {@code from} when it does not exist (and {@code from}, when it
   * does not exist either, at the head of Nessie's default branch); whether it was made.
   */
  public boolean ensureBranch(String name, String from) {
    if (exists(name)) {
      branch(name);
      return false;
    }
    if (!exists(from)) {
      try {
        createBranch(from, api.getDefaultBranch());
      } catch (NessieNotFoundException e) {
        throw new NessieRefException("Nessie has no default branch to make " + from + " from");
      }
    }
    try {
      createBranch(name, branch(from));
      return true;
    } catch (NessieRefException e) {
      if (exists(name)) {
        // made by a job that ran at the same time
        return false;
      }
      throw e;
    }
  }

  /** The content keys whose content differs between two commits (e.g. what a branch has that another has not). */
  public List<ContentKey> changedKeys(String fromRef, String fromHash, String toRef, String toHash) {
    try {
      return api.getDiff().fromRefName(fromRef).fromHashOnRef(fromHash).toRefName(toRef).toHashOnRef(toHash)
          .stream().map(org.projectnessie.model.DiffResponse.DiffEntry::getKey).toList();
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("cannot compare " + fromRef + " with " + toRef + ": " + e.getMessage());
    }
  }

  /** Nessie's default branch (where a new Nessie starts). */
  public String defaultBranch() {
    return api.getConfig().getDefaultBranch();
  }

  /** Every branch and tag. */
  public List<Reference> references() {
    try {
      return api.getAllReferences().stream().toList();
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("cannot list the Nessie references: " + e.getMessage());
    }
  }

  /** When the commit a reference points at was made; the epoch when it is gone or has no commit. */
  public java.time.Instant commitTime(Reference ref) {
    try {
      return api.getCommitLog().refName(ref.getName()).hashOnRef(ref.getHash()).maxRecords(1).get()
          .getLogEntries().stream().findFirst().map(e -> e.getCommitMeta().getCommitTime())
          .orElse(java.time.Instant.EPOCH);
    } catch (NessieNotFoundException e) {
      return java.time.Instant.EPOCH;
    }
  }

  /** The content of {@code keys} at commit {@code hash} of {@code ref}: what is there of them. */
  public Map<ContentKey, Content> contents(String ref, String hash, List<ContentKey> keys) {
    try {
      return api.getContent().refName(ref).hashOnRef(hash).keys(keys).get();
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("cannot read " + ref + " at " + hash + " in Nessie: " + e.getMessage());
    }
  }

  /**
   * The commits of {@code ref} from {@code hash} back, newest first, each with the operations it made (a page at a
   * time as the stream is read).
   */
  public java.util.stream.Stream<LogEntry> logWithOperations(String ref, String hash) throws NessieNotFoundException {
    return api.getCommitLog().refName(ref).hashOnRef(hash).fetch(FetchOption.ALL).stream();
  }

  /** Every key and its content at commit {@code hash} of {@code ref}. */
  public List<EntriesResponse.Entry> entries(String ref, String hash) throws NessieNotFoundException {
    return api.getEntries().refName(ref).hashOnRef(hash).withContent(true).stream().toList();
  }

  /**
   * The newest commit of {@code sourceRef} (at {@code sourceHash}) that {@code target} holds: the commit after which
   * everything on the source is new to the target. Nessie's common ancestor of the two, asked with a merge that only
   * tries; the source's commit itself when the target holds it already (the target is at it, or merged it among its
   * newest commits), which Nessie refuses to try. Empty when they have no commit in common.
   */
  public Optional<String> mergeBase(Branch target, String sourceRef, String sourceHash) {
    try {
      MergeResponse r = api.mergeRefIntoBranch().branch(target).fromRef(Branch.of(sourceRef, sourceHash))
          .dryRun(true).returnConflictAsResult(true).merge();
      return Optional.ofNullable(r.getCommonAncestor());
    } catch (org.projectnessie.error.NessieBadRequestException e) {
      // Nessie refuses even to try a merge of a commit the target already holds: it is the base
      if (sourceHash.equals(target.getHash()) || mergedRecently(target, sourceHash)) {
        return Optional.of(sourceHash);
      }
      throw new NessieRefException("cannot compare " + sourceRef + " with " + target.getName() + " in Nessie: "
          + io.tidemark.TidemarkException.firstLine(e));
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot compare " + sourceRef + " with " + target.getName() + " in Nessie: "
          + io.tidemark.TidemarkException.firstLine(e));
    }
  }

  /** Commits of a branch searched for a merge of a commit: a publish merges the staging branch's head into it. */
  private static final int RECENT_MERGES = 50;

  private boolean mergedRecently(Branch target, String hash) {
    try {
      return api.getCommitLog().refName(target.getName()).hashOnRef(target.getHash()).maxRecords(RECENT_MERGES)
          .stream().limit(RECENT_MERGES).anyMatch(e -> e.getCommitMeta().getParentCommitHashes().contains(hash));
    } catch (NessieNotFoundException e) {
      return false;
    }
  }

  /** A merge Nessie refused: the same content changed on both sides (the keys, when it names them). */
  public static final class MergeRefused extends NessieRefException {
    private final List<String> keys;

    MergeRefused(String message, List<String> keys) {
      super(message);
      this.keys = List.copyOf(keys);
    }

    public List<String> keys() {
      return keys;
    }
  }

  /**
   * Merges commit {@code fromHash} of {@code fromRef} into {@code into} as one commit with this metadata, expecting
   * {@code into} at the head it had when read ({@code into}'s hash): a merge never overwrites what it did not see.
   * The hash of the merge commit; {@link MergeRefused} when Nessie refuses.
   */
  public String mergeExpecting(Branch into, String fromRef, String fromHash, String message, String author,
                               Map<String, String> properties) {
    try {
      MergeResponse r = api.mergeRefIntoBranch().branch(into).fromRef(Branch.of(fromRef, fromHash))
          .commitMeta(CommitMeta.builder().message(message).author(author).putAllProperties(properties).build())
          .merge();
      return r.getResultantTargetHash();
    } catch (NessieConflictException e) {
      List<String> keys = e.getErrorDetails() instanceof org.projectnessie.error.ReferenceConflicts rc
          ? rc.conflicts().stream().map(org.projectnessie.model.Conflict::key).filter(java.util.Objects::nonNull)
              .map(ContentKey::toString).toList() : List.of();
      throw new MergeRefused(io.tidemark.TidemarkException.firstLine(e), keys);
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("cannot merge " + fromRef + " into " + into.getName() + ": " + e.getMessage());
    }
  }

  /** Deletes the branch if it is still at {@code hash}: one that moved meanwhile is in use. True when deleted. */
  public boolean deleteBranchAt(String name, String hash) {
    try {
      api.deleteBranch().branch(Branch.of(name, hash)).delete();
      return true;
    } catch (NessieNotFoundException e) {
      return false; // already gone: what was wanted
    } catch (NessieConflictException e) {
      throw new NessieRefException("cannot delete branch " + name + ": " + e.getMessage());
    }
  }

  /** Deletes the tag if it is still at {@code hash}. True when deleted. */
  public boolean deleteTagAt(String name, String hash) {
    try {
      api.deleteTag().tag(Tag.of(name, hash)).delete();
      return true;
    } catch (NessieNotFoundException e) {
      return false;
    } catch (NessieConflictException e) {
      throw new NessieRefException("cannot delete tag " + name + ": " + e.getMessage());
    }
  }

  /** A new branch at the head of {@code from}. */
  public Branch createBranch(String name, Branch from) {
    try {
      return (Branch) api.createReference().sourceRefName(from.getName())
          .reference(Branch.of(name, from.getHash())).create();
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot create branch " + name + ": " + e.getMessage());
    }
  }

  /**
   * Merges {@code from} into {@code into} as one commit with this metadata; empty when Nessie refuses because
   * the same content changed on both sides since the branch was cut (the caller recomputes and retries).
   */
  public Optional<String> merge(Branch from, String into, String message, String author,
                                Map<String, String> properties) {
    try {
      MergeResponse r = api.mergeRefIntoBranch()
          .branch(branch(into))
          .fromRef(branch(from.getName()))
          .commitMeta(CommitMeta.builder().message(message).author(author).putAllProperties(properties).build())
          .merge();
      return Optional.ofNullable(r.getResultantTargetHash());
    } catch (NessieConflictException e) {
      return Optional.empty();
    } catch (NessieNotFoundException e) {
      throw new NessieRefException("cannot merge " + from.getName() + " into " + into + ": " + e.getMessage());
    }
  }

  public void tag(String name, String branch, String hash) {
    try {
      api.createReference().sourceRefName(branch).reference(Tag.of(name, hash)).create();
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot tag " + hash + " as " + name + ": " + e.getMessage());
    }
  }

  public void deleteBranch(String name) {
    try {
      api.deleteBranch().branch(branch(name)).delete();
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot delete branch " + name + ": " + e.getMessage());
    }
  }

  /**
   * Records a step on a branch as a commit that changes no content: its message and properties say what was
   * done. Nessie refuses a commit without operations, so it carries an "unchanged" assertion on a key no table
   * uses.
   */
  public Branch mark(String branch, String message, String author, Map<String, String> properties) {
    try {
      return api.commitMultipleOperations().branch(branch(branch))
          .operation(Operation.Unchanged.of(ContentKey.of(MARK_KEY)))
          .commitMeta(CommitMeta.builder().message(message).author(author).putAllProperties(properties).build())
          .commit();
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot record on branch " + branch + ": " + e.getMessage());
    }
  }

  /**
   * Commits of {@code ref}, newest first, whose properties hold all of {@code equal} (filtered by the server,
   * so a long history is not sent over); at most {@code max}.
   */
  public List<LogEntry> commitsWith(String ref, Map<String, String> equal, int max) {
    return commitsWith(ref, equal, max, null);
  }

  /**
   * The same, among the commits after {@code untilHash} (exclusive; null: the whole log): the server then stops
   * there instead of filtering the whole history.
   */
  public List<LogEntry> commitsWith(String ref, Map<String, String> equal, int max, String untilHash) {
    String filter = equal.entrySet().stream()
        .map(e -> "'" + cel(e.getKey()) + "' in commit.properties && commit.properties['" + cel(e.getKey()) + "'] == '"
            + cel(e.getValue()) + "'")
        .collect(Collectors.joining(" && "));
    try {
      // stream(): follows the pages, should the server return a filtered page short
      var log = api.getCommitLog().refName(ref).filter(filter).maxRecords(max);
      if (untilHash != null) {
        log = log.untilHash(untilHash);
      }
      return log.stream().limit(max).toList();
    } catch (NessieNotFoundException e) {
      return List.of();
    }
  }

  /** The commits of {@code ref}, newest first, fetched a page at a time as the stream is read. */
  public java.util.stream.Stream<LogEntry> log(String ref) {
    try {
      return api.getCommitLog().refName(ref).maxRecords(50).stream();
    } catch (NessieNotFoundException e) {
      return java.util.stream.Stream.empty();
    }
  }

  /** A commit hash in full: Nessie's are 64 hex digits, and it takes no shorter one. */
  public static final int FULL_HASH = 64;

  /**
   * The full hash of the commit in {@code ref}'s history that {@code prefix} begins, as git takes an abbreviated
   * hash; a full hash is returned as it is. Fails naming the ref when no commit or several begin with it.
   */
  public String fullHash(String ref, String prefix) {
    String p = prefix.toLowerCase(java.util.Locale.ROOT);
    if (p.length() >= FULL_HASH) {
      return p;
    }
    if (!exists(ref)) {
      throw new NessieRefException("no branch or tag " + ref + " in Nessie, where the hash " + prefix
          + " was to be found");
    }
    List<String> found = log(ref).map(e -> e.getCommitMeta().getHash()).filter(h -> h.startsWith(p)).limit(2)
        .toList();
    if (found.isEmpty()) {
      throw new NessieRefException("no commit of " + ref + " has a hash that begins with " + prefix
          + " (`tidemark log " + ref + "` lists them)");
    }
    if (found.size() > 1) {
      throw new NessieRefException("the hash " + prefix + " is ambiguous on " + ref + ": " + found.get(0) + " and "
          + found.get(1) + " both begin with it; give more of it");
    }
    return found.get(0);
  }

  private static String cel(String s) {
    return s.replace("\\", "\\\\").replace("'", "\\'");
  }

  /** Points a branch back at one of its commits, dropping what came after (an unfinished step). */
  public Branch reset(String name, String hash) {
    try {
      return api.assignBranch().branch(branch(name)).assignTo(Branch.of(name, hash)).assignAndGet();
    } catch (NessieConflictException | NessieNotFoundException e) {
      throw new NessieRefException("cannot reset branch " + name + " to " + hash + ": " + e.getMessage());
    }
  }

  /** The hash a reference (branch or tag) points at; empty when there is none of that name. */
  public Optional<String> hash(String name) {
    try {
      return Optional.of(api.getReference().refName(name).get().getHash());
    } catch (NessieNotFoundException e) {
      return Optional.empty();
    }
  }

  /** The names of all branches starting with {@code prefix}. */
  public List<String> branches(String prefix) {
    return api.getAllReferences().get().getReferences().stream()
        .filter(r -> r instanceof Branch && r.getName().startsWith(prefix)).map(Reference::getName).toList();
  }

  /**
   * The newest tag (by name) whose name starts with {@code prefix} and whose commit's properties {@code wanted}
   * accepts: those properties.
   */
  public Optional<Map<String, String>> newestTagProperties(String prefix,
      java.util.function.Predicate<Map<String, String>> wanted) {
    List<Reference> tags = api.getAllReferences().get().getReferences().stream()
        .filter(r -> r instanceof Tag && r.getName().startsWith(prefix))
        .sorted(Comparator.comparing(Reference::getName).reversed())
        .toList();
    for (Reference tag : tags) {
      try {
        LogResponse log = api.getCommitLog().refName(tag.getName()).hashOnRef(tag.getHash()).maxRecords(1).get();
        Optional<Map<String, String>> props = log.getLogEntries().stream().findFirst()
            .map(e -> e.getCommitMeta().getProperties());
        if (props.isPresent() && wanted.test(props.get())) {
          return props;
        }
      } catch (NessieNotFoundException e) {
        // deleted meanwhile: the next one
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    api.close();
  }
}
