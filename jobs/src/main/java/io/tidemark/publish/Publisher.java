package io.tidemark.publish;

import io.tidemark.CrashPoints;
import io.tidemark.Timings;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CommitKeys;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefException;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.stream.BatchArrivals;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.projectnessie.model.Branch;
import org.projectnessie.model.Content;
import org.projectnessie.model.ContentKey;

/**
 * Publishes what the writers staged: reads the staging branch's head once, checks what it changed since the
 * published branch ({@link ArrivalChecks}), and when every check passes merges exactly that commit into the
 * published branch, naming the published head it read: one Nessie commit, which says which arrivals, how many rows
 * per table and which checks passed. Nessie applies a merge whole or not at all, so a reader of the published
 * branch sees every table at the same arrival. A merge Nessie refuses (someone changed the same table on the
 * published branch) is reported, never forced; a failed check leaves the published branch where it was and tags
 * the staged commit {@code rejected-<hash>} for inspection. Safe to rerun and to kill: nothing staged, nothing done.
 */
public final class Publisher {
  public static final String AUTHOR = "tidemark-publish";

  /**
   * What a publish did. {@code mergeHash} null: nothing published (nothing staged, or a dry run). {@code arrivals}:
   * each feed's arrivals ({@link #describe}), empty when none.
   */
  public record Result(String publishedRef, String stagingBranch, String stagedHash, String mergeHash,
                       String arrivals, Map<TableName, Long> rows, List<AuditCheck> checks, boolean nothingStaged,
                       long checkMs, long totalMs) {
    public String summary() {
      if (nothingStaged) {
        return "publish: nothing staged on " + stagingBranch + " that " + publishedRef + " does not have";
      }
      String what = (arrivals.isEmpty() ? "no new arrival" : arrivals) + ", " + rows.entrySet().stream()
          .map(e -> e.getKey() + " " + signed(e.getValue())).collect(Collectors.joining(", "));
      String checked = checks.size() + " checks passed (" + checks.stream().map(AuditCheck::name)
          .collect(Collectors.joining(", ")) + ")";
      return mergeHash == null ? "publish (dry run): would publish " + what + " from " + stagingBranch + "@"
          + shortHash(stagedHash) + "; " + checked
          : "published " + what + " to " + publishedRef + " (" + shortHash(mergeHash) + "); " + checked;
    }
  }

  private final Lakehouse lakehouse;
  private final TidemarkConfig config;
  private final CrashPoints crash;
  private final Timings timings;

  /** {@code lakehouse}: a writer's ({@link TidemarkConfig#writing}), whose catalog reads the staging branch. */
  public Publisher(Lakehouse lakehouse) {
    this(lakehouse, CrashPoints.NONE, Timings.NONE);
  }

  /**
   * The same, halting at {@code crash}'s points ({@code publish:after-checks}, {@code publish:after-merge}) and
   * putting where the time goes step by step into {@code timings} ({@code tidemark bench publish} prints it).
   */
  public Publisher(Lakehouse lakehouse, CrashPoints crash, Timings timings) {
    this.lakehouse = lakehouse;
    this.config = lakehouse.config();
    this.crash = crash;
    this.timings = timings;
  }

  public Result publish(boolean dryRun) {
    long t0 = System.nanoTime();
    String published = config.publishedRef();
    String staging = config.stagingBranch();
    if (published.equals(staging)) {
      throw new PublishException("TIDEMARK_STAGING_BRANCH is TIDEMARK_NESSIE_REF (" + staging + "): there is no "
          + "staging branch to publish from; give them different names");
    }
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      if (!refs.exists(staging)) {
        throw new PublishException("no branch " + staging + " in Nessie: run `tidemark bootstrap`");
      }
      Branch target = refs.branch(published);
      String stagedHash = refs.branch(staging).getHash();
      // what the staging branch changed since the published branch last took it in (their merge base), not every
      // difference between the two heads: a table a user changed on the published branch alone is none of the
      // arrival's, and Nessie's merge leaves it as the user left it
      Staged staged = staged(refs, target, stagedHash, t0);
      String base = staged.publishedHash();
      if (staged.isEmpty()) {
        return new Result(published, staging, stagedHash, null, "", Map.of(), List.of(), true, 0, ms(t0));
      }
      java.util.Set<ContentKey> changedOnPublished = new java.util.HashSet<>(
          refs.changedKeys(staging, base, published, target.getHash()));
      List<String> diverged = staged.changes().values().stream()
          .filter(c -> c.diverged() || changedOnPublished.contains(Staged.key(c.name())))
          .map(c -> c.name().toString()).toList();
      if (!diverged.isEmpty()) {
        throw new PublishException("conflict: " + published + " changed " + capped(diverged) + " since it was "
            + "staged, outside `tidemark publish`" + undoOnPublished(refs, target, diverged) + "; publish never "
            + "overwrites: take that change off " + published + " (or redo it on " + staging + " through the jobs), "
            + "then publish again; see docs/troubleshooting.md#a-conflict-on-main");
      }
      long c0 = System.nanoTime();
      List<AuditCheck> checks;
      try (ArrivalChecks runner = new ArrivalChecks(config, lakehouse.storage())) {
        checks = runner.run(staged, timings);
      }
      long checkMs = ms(c0);
      Map<String, java.util.TreeSet<Integer>> byFeed = staged.arrivalsByFeed();
      String arrivals = describe(byFeed);
      Map<TableName, Long> rows = new LinkedHashMap<>();
      staged.changes().forEach((t, c) -> rows.put(t, c.netRows()));
      List<AuditCheck> failures = failures(checks);
      AuditCheck failed = failures.isEmpty() ? null : failures.get(0);
      if (failed != null) {
        String tag = RefNames.rejectedTag(shortHash(stagedHash));
        if (!dryRun && !refs.exists(tag)) {
          refs.tag(tag, staging, stagedHash);
        }
        throw new PublishRefused(failures, checks, published, target.getHash(), dryRun ? null : tag, staging,
            Releases.of(failed.name(), staged, refs, config));
      }
      if (dryRun) {
        return new Result(published, staging, stagedHash, null, arrivals, rows, checks, false, checkMs, ms(t0));
      }
      crash.at("publish:after-checks");
      long m0 = System.nanoTime();
      String merge = merge(refs, target, staging, stagedHash, message(staged, arrivals, rows, checks),
          properties(staged, byFeed, rows, checks));
      timings.put("merge", ms(m0));
      crash.at("publish:after-merge");
      return new Result(published, staging, stagedHash, merge, arrivals, rows, checks, false, checkMs, ms(t0));
    }
  }

  /**
   * What commit {@code stagedHash} of the staging branch (its head, or a commit a {@code rejected-*} tag keeps) holds
   * that the published branch does not, since their merge base; Nessie's part timed as "nessie", the tables' loads as
   * "load".
   */
  private Staged staged(NessieRefs refs, Branch target, String stagedHash, long t0) {
    String staging = config.stagingBranch();
    String base = mergeBase(refs, target, staging, stagedHash);
    List<ContentKey> changed = refs.changedKeys(staging, base, staging, stagedHash);
    Map<ContentKey, Content> atBase = published(refs, staging, base);
    timings.put("nessie", ms(t0));
    long l0 = System.nanoTime();
    Staged staged = Staged.read(lakehouse.spark(), config, atBase, base, stagedHash, changed);
    timings.put("load", ms(l0));
    return staged;
  }

  /**
   * The publish checks of commit {@code hash} of the staging branch, as a publish of it would run them, and nothing
   * else (no merge, no tag): {@code tidemark check} on a {@code rejected-*} tag. Empty when it holds nothing the
   * published branch lacks.
   */
  public List<AuditCheck> checksOf(String hash) {
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      Staged staged = staged(refs, refs.branch(config.publishedRef()), hash, System.nanoTime());
      if (staged.isEmpty()) {
        return List.of();
      }
      try (ArrivalChecks runner = new ArrivalChecks(config, lakehouse.storage())) {
        return runner.run(staged, timings);
      }
    }
  }

  /**
   * The failed checks, the one a refusal names first: a hand-made write, then an arrival some streams have not wholly taken in,
   * which explains what the others find in it (a change log's version the dimension lacks, a run killed between
   * its two commits) and whose fix is to rerun the streams; then the checks in their order.
   */
  static List<AuditCheck> failures(List<AuditCheck> checks) {
    return checks.stream().filter(c -> !c.passed()).sorted(java.util.Comparator.comparingInt(Publisher::precedence))
        .toList();
  }

  private static int precedence(AuditCheck c) {
    return ArrivalChecks.WRITERS.equals(c.name()) ? 0 : ArrivalChecks.SAME_ARRIVALS.equals(c.name()) ? 1 : 2;
  }

  /** The pipeline's tables at the staging branch's commit the published branch holds. */
  private Map<ContentKey, Content> published(NessieRefs refs, String staging, String base) {
    try {
      return refs.contents(staging, base, config.pipeline().tables().stream().map(Staged::key).toList());
    } catch (NessieRefException e) {
      throw new PublishException(e.getMessage());
    }
  }

  /**
   * The newest commit of the staging branch that the published branch holds (Nessie's common ancestor of the two):
   * the commit after which everything staged is new.
   */
  private static String mergeBase(NessieRefs refs, Branch target, String staging, String stagedHash) {
    try {
      return refs.mergeBase(target, staging, stagedHash).orElseThrow(() -> new PublishException(staging + " and "
          + target.getName() + " have no commit in common: run `tidemark bootstrap`, which makes " + staging
          + " from " + target.getName()));
    } catch (NessieRefException e) {
      throw new PublishException(e.getMessage());
    }
  }

  /** One merge of the staged commit, expecting the published branch at the head that was read. */
  private String merge(NessieRefs refs, Branch target, String staging, String stagedHash, String message,
                       Map<String, String> props) {
    try {
      return refs.mergeExpecting(target, staging, stagedHash, message, AUTHOR, props);
    } catch (NessieRefs.MergeRefused e) {
      throw new PublishException("conflict: Nessie refused to merge " + staging + "@" + shortHash(stagedHash)
          + " into " + target.getName() + " (" + (e.keys().isEmpty() ? e.getMessage()
          : "changed on both sides: " + capped(e.keys())) + "); publish never forces: look at `tidemark sql "
          + "\"SHOW LOG " + target.getName() + "\"`, then publish again");
    } catch (NessieRefException e) {
      throw new PublishException(e.getMessage());
    }
  }

  /**
   * Where the write on the published branch that conflicts is, and the command that takes it off (with what it
   * drops): "(a1b2c3d4e5f6 (alice: Iceberg append against facts.events): tidemark sql "ASSIGN ...")"; empty when it
   * is not found among the commits since the newest publish.
   */
  private static String undoOnPublished(NessieRefs refs, Branch target, List<String> tables) {
    java.util.Set<String> keys = new java.util.HashSet<>(tables);
    return Undo.oldest(refs, target.getName(), target.getHash(), m -> AUTHOR.equals(m.getAuthor()),
            Undo.touches(keys))
        .map(p -> " by " + p.undone().shortly() + (p.after().isEmpty() ? "" : " and " + p.after().size()
            + " commit(s) after it") + ": take it off with tidemark sql \"ASSIGN BRANCH " + target.getName() + " TO "
            + target.getName() + " AT " + p.undone().parent() + " IN nessie\"")
        .orElse("");
  }

  /**
   * The arrivals of each feed a publish takes ({@code events arrival 4, companies arrivals 4-5}): a feed's arrivals are
   * numbered apart from another's.
   */
  static String describe(Map<String, java.util.TreeSet<Integer>> byFeed) {
    return byFeed.entrySet().stream().map(e -> {
      String n = BatchArrivals.describe(e.getValue());
      return e.getKey() + (n.matches("\\d+") ? " arrival " : " arrivals ") + n;
    }).collect(Collectors.joining(", "));
  }

  private String message(Staged staged, String arrivals, Map<TableName, Long> rows, List<AuditCheck> checks) {
    String what = arrivals.isEmpty() ? "corrections and maintenance" : arrivals;
    return "publish " + what + " from " + config.stagingBranch() + ": " + rows.entrySet().stream()
        .map(e -> e.getKey() + " " + signed(e.getValue())).collect(Collectors.joining(", ")) + "; " + checks.size()
        + " checks passed; written by " + String.join(", ", staged.writers());
  }

  private Map<String, String> properties(Staged staged, Map<String, java.util.TreeSet<Integer>> byFeed,
                                         Map<TableName, Long> rows, List<AuditCheck> checks) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(CommitKeys.STAGE, "publish");
    p.put(CommitKeys.PUBLISHED, staged.stagedHash());
    p.put(CommitKeys.STAGED_ON, config.stagingBranch());
    byFeed.forEach((feed, numbers) -> p.put(CommitKeys.arrivalsOf(feed), BatchArrivals.describe(numbers)));
    rows.forEach((t, n) -> p.put(CommitKeys.ROWS + t, Long.toString(n)));
    p.put(CommitKeys.AUDIT, CommitKeys.PASSED);
    p.put(CommitKeys.AUDIT_CHECKS, Integer.toString(checks.size()));
    p.put(CommitKeys.CHECKS, checks.stream().map(AuditCheck::name).collect(Collectors.joining(",")));
    p.put(CommitKeys.PIPELINE, config.pipeline().identity());
    return p;
  }

  private static String capped(List<String> items) {
    return items.size() <= 3 ? String.join(", ", items)
        : String.join(", ", items.subList(0, 3)) + " and " + (items.size() - 3) + " more";
  }

  /** A table's rows gained, signed: "+3", "-1", "+0". */
  static String signed(long rows) {
    return rows < 0 ? Long.toString(rows) : "+" + rows;
  }

  static String shortHash(String hash) {
    return hash.length() > 8 ? hash.substring(0, 8) : hash;
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
