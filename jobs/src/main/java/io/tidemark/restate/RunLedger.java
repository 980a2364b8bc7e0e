package io.tidemark.restate;

import io.tidemark.audit.AuditCheck;
import io.tidemark.lakehouse.CommitKeys;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.util.Comparator;
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
 * tidemark-restate, properties with the run id and the stage), the merge commit on main. The stages write their
 * marks through it and read the run's state back from it.
 */
final class RunLedger {
  static final String AUTHOR = "tidemark-restate";
  private static final String AUDIT = CommitKeys.AUDIT;
  private static final String CHECKS = CommitKeys.AUDIT_CHECKS;
  private static final String FAILURE = CommitKeys.AUDIT_FAILURE;

  private final NessieRefs refs;
  private final String prefix;
  private final String runId;
  private final String main;

  RunLedger(NessieRefs refs, String prefix, String runId, String main) {
    this.refs = refs;
    this.prefix = prefix;
    this.runId = runId;
    this.main = main;
  }

  String branchName(int attempt) {
    return prefix + Restatement.BRANCH + runId + (attempt > 1 ? "-" + attempt : "");
  }

  String tagName() {
    return prefix + Restatement.TAG + runId;
  }

  RunState read() {
    Optional<String> tagged = refs.hash(tagName());
    Optional<String> merged = refs.commitsWith(main, Map.of(Plan.RUN_ID, runId, Plan.STAGE, "publish"), 20).stream()
        .map(LogEntry::getCommitMeta)
        .filter(m -> m.getProperties().getOrDefault(Plan.BRANCH, "").startsWith(branchName(1)))
        .map(CommitMeta::getHash).findFirst();
    String base = branchName(1);
    List<String> names = refs.branches(base).stream()
        .filter(n -> n.equals(base) || n.substring(base.length()).matches("-[0-9]+"))
        .sorted(Comparator.comparingInt((String n) -> attemptOf(base, n)).reversed()).toList();
    for (String name : names) {
      Branch head = refs.branch(name);
      List<CommitMeta> marks = refs.commitsWith(name, Map.of(Plan.RUN_ID, runId, Plan.BRANCH, name), 200).stream()
          .map(LogEntry::getCommitMeta).toList();
      Optional<Plan> plan = marks.stream().filter(m -> "plan".equals(m.getProperties().get(Plan.STAGE))).findFirst()
          .map(m -> Plan.of(m.getHash(), m.getProperties()));
      if (plan.isEmpty() && attemptOf(base, name) > 1) {
        continue; // another run's branch whose id ends in -<digits>
      }
      Optional<String> written = marks.stream().filter(m -> "write".equals(m.getProperties().get(Plan.STAGE)))
          .map(CommitMeta::getHash).findFirst();
      Optional<RunState.AuditMark> audit = marks.stream()
          .filter(m -> "audit".equals(m.getProperties().get(Plan.STAGE))).findFirst()
          .map(m -> new RunState.AuditMark(m.getHash(), CommitKeys.PASSED.equals(m.getProperties().get(AUDIT)),
              Integer.parseInt(m.getProperties().getOrDefault(CHECKS, "0")), m.getProperties().get(FAILURE)));
      return new RunState(Optional.of(head), plan, written, audit, merged, tagged);
    }
    return new RunState(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), merged, tagged);
  }

  private static int attemptOf(String base, String name) {
    return name.equals(base) ? 1 : Integer.parseInt(name.substring(base.length() + 1));
  }

  /** The plan's mark: the commit the corrections are computed from, whatever is committed after it. */
  Plan markPlan(Plan plan) {
    String message = "restatement " + runId + " plan: " + plan.summary() + " (branch " + plan.branch() + ")";
    return plan.at(refs.mark(plan.branch(), message, AUTHOR, plan.properties()).getHash());
  }

  void markWritten(Plan plan) {
    Map<String, String> p = stage(plan, "write");
    refs.mark(plan.branch(), "restatement " + runId + " write: " + plan.windows() + " window(s), " + plan.events()
        + " event(s), " + plan.changes() + " company change(s) corrected on " + plan.branch(), AUTHOR, p);
  }

  void markAudited(Plan plan, List<AuditCheck> checks) {
    Map<String, String> p = stage(plan, "audit");
    Optional<AuditCheck> failed = checks.stream().filter(c -> !c.passed()).findFirst();
    p.put(AUDIT, failed.isEmpty() ? CommitKeys.PASSED : CommitKeys.FAILED);
    p.put(CHECKS, Integer.toString(checks.size()));
    failed.ifPresent(f -> p.put(FAILURE, f.toString()));
    refs.mark(plan.branch(), "restatement " + runId + " audit " + (failed.isEmpty() ? "passed (" + checks.size()
        + " checks)" : "failed: " + failed.get().name() + " on " + failed.get().table()), AUTHOR, p);
  }

  private Map<String, String> stage(Plan plan, String stage) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(Plan.RUN_ID, runId);
    p.put(Plan.STAGE, stage);
    p.put(Plan.BRANCH, plan.branch());
    p.put(CommitKeys.PLAN, plan.hash());
    return p;
  }
}
