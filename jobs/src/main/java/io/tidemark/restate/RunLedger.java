package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.nessie.RefNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.projectnessie.model.Branch;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.LogResponse.LogEntry;

/**
 * A run's names and records in Nessie: branch {@code <prefix>restate-<id>} (attempt n > 1:
 * {@code ...-<id>-n}), tag {@code <prefix>restated-<id>}, a mark commit per finished stage on the branch (author
 * tidemark-restate, properties with the run id and the stage), the merge commit on the staging branch. The stages
 * write their
 * marks through it and read the run's state back from it.
 */
final class RunLedger {
  static final String AUTHOR = "tidemark-restate";
  /** Commits after a plan's mark on its branch: the run's own (a few) and a person's fixes, never this many. */
  private static final int MARK_SEARCH = 1000;

  private final NessieRefs refs;
  private final String prefix;
  private final String runId;
  private final String staging;
  private final boolean mayBeOld;

  /**
   * {@code mayBeOld}: the run id may have been used before (a person or an orchestrator gave it); a generated one is
   * new, and its run has no commit anywhere yet.
   */
  RunLedger(NessieRefs refs, String prefix, String runId, String staging, boolean mayBeOld) {
    this.refs = refs;
    this.prefix = prefix;
    this.runId = runId;
    this.staging = staging;
    this.mayBeOld = mayBeOld;
  }

  String branchName(int attempt) {
    return RefNames.restateBranch(prefix, runId, attempt);
  }

  String tagName() {
    return RefNames.restatedTag(prefix, runId);
  }

  /** The ids of the runs whose branch or tag Nessie has (with this ledger's prefix), in name order. */
  List<String> knownRuns() {
    java.util.TreeSet<String> ids = new java.util.TreeSet<>();
    String branch = prefix + RefNames.RESTATE;
    String tag = prefix + RefNames.RESTATED;
    for (org.projectnessie.model.Reference r : refs.references()) {
      if (r instanceof Branch && r.getName().startsWith(branch)) {
        ids.add(r.getName().substring(branch.length()));
      } else if (r instanceof org.projectnessie.model.Tag && r.getName().startsWith(tag)) {
        ids.add(r.getName().substring(tag.length()));
      }
    }
    return List.copyOf(ids);
  }

  RunState read() {
    Optional<String> tagged = refs.hash(tagName());
    String base = branchName(1);
    List<String> names = refs.branches(base).stream()
        .filter(n -> n.equals(base) || n.substring(base.length()).matches("-[0-9]+"))
        .sorted(Comparator.comparingInt((String n) -> attemptOf(base, n)).reversed()).toList();
    for (String name : names) {
      Branch head = refs.branch(name);
      List<CommitMeta> marks = marksOn(name);
      Optional<Plan> plan = mark(marks, Stage.PLAN).map(m -> Plan.of(m.getHash(), m.getProperties()));
      if (plan.isEmpty() && attemptOf(base, name) > 1) {
        continue; // another run's branch whose id ends in -<digits>
      }
      Optional<String> written = mark(marks, Stage.WRITE).map(CommitMeta::getHash);
      Optional<RunState.AuditMark> audit = mark(marks, Stage.AUDIT)
          .map(m -> new RunState.AuditMark(m.getHash(), CommitKeys.PASSED.equals(m.getProperties()
              .get(CommitKeys.AUDIT)), Integer.parseInt(m.getProperties().getOrDefault(CommitKeys.AUDIT_CHECKS, "0")),
              m.getProperties().get(CommitKeys.AUDIT_FAILURE)));
      // a run merges after its newest plan: the staging branch's log is searched back to that plan's cut, not
      // through history
      Optional<String> merged = plan.isEmpty() ? Optional.empty() : merged(plan.get().base());
      return new RunState(Optional.of(head), plan, written, audit, merged, tagged);
    }
    // no branch: a new run, or one whose branch is gone; its tag, when it has one, is at its merge commit
    Optional<String> merged = tagged.isPresent() || !mayBeOld ? tagged : merged(null);
    return new RunState(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), merged, tagged);
  }

  /**
   * The run's merge commit on the staging branch, among the commits after {@code since} (null: all of its history);
   * a run merged before the stage was renamed carries the stage's former name.
   */
  private Optional<String> merged(String since) {
    for (String stage : List.of(Stage.MERGE.label(), Stage.FORMER_MERGE_LABEL)) {
      Optional<String> merge = refs.commitsWith(staging, Map.of(CommitKeys.RUN_ID, runId, CommitKeys.STAGE, stage), 20,
              since).stream().map(LogEntry::getCommitMeta)
          .filter(m -> m.getProperties().getOrDefault(CommitKeys.BRANCH, "").startsWith(branchName(1)))
          .map(CommitMeta::getHash).findFirst();
      if (merge.isPresent()) {
        return merge;
      }
    }
    return Optional.empty();
  }

  /**
   * The run's marks on a branch, newest first: its log is read from the head back to the plan's mark, which is the
   * first of them (a branch whose plan was never marked is read back {@link #MARK_SEARCH} commits at most).
   */
  private List<CommitMeta> marksOn(String branch) {
    List<CommitMeta> marks = new ArrayList<>();
    Iterator<LogEntry> log = refs.log(branch).limit(MARK_SEARCH).iterator();
    while (log.hasNext()) {
      CommitMeta m = log.next().getCommitMeta();
      Map<String, String> p = m.getProperties();
      if (runId.equals(p.get(CommitKeys.RUN_ID)) && branch.equals(p.get(CommitKeys.BRANCH))) {
        marks.add(m);
        if (Stage.PLAN.label().equals(p.get(CommitKeys.STAGE))) {
          break;
        }
      }
    }
    return marks;
  }

  /** The newest mark of a stage (the log comes newest first). */
  private static Optional<CommitMeta> mark(List<CommitMeta> marks, Stage stage) {
    return marks.stream().filter(m -> stage.label().equals(m.getProperties().get(CommitKeys.STAGE))).findFirst();
  }

  private static int attemptOf(String base, String name) {
    return name.equals(base) ? 1 : Integer.parseInt(name.substring(base.length() + 1));
  }

  /** The plan's mark: what the later stages apply and check, whatever is committed after it. */
  Plan markPlan(Plan plan) {
    String message = "restatement " + runId + " plan: " + plan.summary() + " (branch " + plan.branch() + ")";
    return plan.at(refs.mark(plan.branch(), message, AUTHOR, plan.properties()).getHash());
  }

  void markWritten(Plan plan) {
    refs.mark(plan.branch(), "restatement " + runId + " write: " + plan.windows() + " window(s), " + plan.records()
        + " record(s), " + plan.changes() + " dimension change(s) corrected on " + plan.branch(), AUTHOR,
        stage(plan, Stage.WRITE));
  }

  /** The audit's verdict; the hash of its mark. */
  String markAudited(Plan plan, List<AuditCheck> checks) {
    Map<String, String> p = stage(plan, Stage.AUDIT);
    Optional<AuditCheck> failed = checks.stream().filter(c -> !c.passed()).findFirst();
    p.put(CommitKeys.AUDIT, failed.isEmpty() ? CommitKeys.PASSED : CommitKeys.FAILED);
    p.put(CommitKeys.AUDIT_CHECKS, Integer.toString(checks.size()));
    failed.ifPresent(f -> p.put(CommitKeys.AUDIT_FAILURE, f.toString()));
    return refs.mark(plan.branch(), "restatement " + runId + " audit " + (failed.isEmpty() ? "passed ("
        + checks.size() + " checks)" : "failed: " + failed.get().name() + " on " + failed.get().table()), AUTHOR, p)
        .getHash();
  }

  private Map<String, String> stage(Plan plan, Stage stage) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(CommitKeys.RUN_ID, runId);
    p.put(CommitKeys.STAGE, stage.label());
    p.put(CommitKeys.BRANCH, plan.branch());
    p.put(CommitKeys.PLAN, plan.hash());
    return p;
  }
}
