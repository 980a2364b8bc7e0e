package io.tidemark.core;

/**
 * Every key tidemark writes into an Iceberg snapshot's summary or a Nessie commit's properties, and what its value
 * means. Snapshot summaries say which job made a table's commit (exactly once rests on them); the catalog copies
 * them into the Nessie commit it makes ({@link io.tidemark.lakehouse.nessie.CommitStory}), and the restatement
 * keeps its whole state in Nessie commits with these keys, so the Nessie log and UI tell the pipeline's story and
 * a script can filter the log on them. A key means one thing wherever it appears.
 */
public final class CommitKeys {
  /** Every key starts with it: what the catalog copies from a snapshot's summary into its Nessie commit. */
  public static final String PREFIX = "tidemark.";

  // ---- who made a table's commit (snapshot summaries; copied to the Nessie commit)

  /** The stream that made the commit, or {@link #RESTATEMENT_STREAM} for the restatement. */
  public static final String STREAM = "tidemark.stream";
  /** The value of {@link #STREAM} on the restatement's commits. */
  public static final String RESTATEMENT_STREAM = "restate";
  /** The value of {@link #STREAM} on the commits of {@code tidemark evolve} (a column added and backfilled). */
  public static final String EVOLVE_STREAM = "evolve";
  /** The streaming query (its id, kept in its checkpoint) whose micro-batch made the commit. */
  public static final String QUERY_ID = "tidemark.query-id";
  /** The micro-batch of that query. */
  public static final String BATCH_ID = "tidemark.batch-id";
  /** The batch's watermark as an ISO instant, for people. */
  public static final String WATERMARK = "tidemark.watermark";
  /** The same watermark in epoch milliseconds, for code. */
  public static final String WATERMARK_MS = "tidemark.watermark-ms";
  /**
   * The landed arrivals the batch read ("3", "1-3", "1,4"), when its files name one. On a publish commit, per feed:
   * {@code tidemark.arrivals.<feed>} ({@link #arrivalsOf}; a feed's arrivals are numbered apart from another's).
   */
  public static final String ARRIVALS = "tidemark.arrivals";

  /** The key of a publish commit that names the arrivals of a feed (its directory name): {@code tidemark.arrivals.events}. */
  public static String arrivalsOf(String feed) {
    return ARRIVALS + "." + feed;
  }
  /**
   * Prefix of a key per streaming query on the commits of the stream-batches table: {@code tidemark.recorded.<query
   * id>} is the newest batch of that query the commit recorded, so a batch is recorded once.
   */
  public static final String RECORDED = "tidemark.recorded.";
  /** The restatement run that made the commit (its table commits and every commit it makes in Nessie). */
  public static final String RUN_ID = "tidemark.run-id";
  /** The orchestrator's run that started the job (e.g. Airflow's DAG run and task), when one says so. */
  public static final String RUN_CONTEXT = "tidemark.run-context";

  // ---- a restatement's commits in Nessie: its marks on its branch, its merge commit on main

  /** Which stage made the commit: plan, write, audit or publish (the merge commit). */
  public static final String STAGE = "tidemark.stage";
  /** The run's branch the commit belongs to (on main's merge commit: the branch merged). */
  public static final String BRANCH = "tidemark.branch";
  /** The hash of the plan's commit that a later stage's commit works from. */
  public static final String PLAN = "tidemark.plan";
  /** On a plan's commit: the commit of main the run's branch was cut from, which the plan read. */
  public static final String BASE = "tidemark.base";
  /** On a plan's commit: the restatement plan table's snapshot that holds the plan's corrections. */
  public static final String PLAN_SNAPSHOT = "tidemark.plan-snapshot";
  /** Which attempt of the run the branch is (1, or more when main moved before the publish). */
  public static final String ATTEMPT = "tidemark.attempt";
  /** The pipeline the commit belongs to (its identity: several pipelines may share a Nessie). */
  public static final String PIPELINE = "tidemark.pipeline";
  /** Finalized windows the plan found to correct, over every aggregate. */
  public static final String WINDOWS_PLANNED = "tidemark.windows-planned";
  /** Record keys of fact feeds the plan found to correct. */
  public static final String RECORDS_PLANNED = "tidemark.records-planned";
  /** Late dimension changes the plan found to apply. */
  public static final String CHANGES_PLANNED = "tidemark.changes-planned";
  /** Windows corrected by the published restatement. */
  public static final String WINDOWS_CORRECTED = "tidemark.windows-corrected";
  /** Record keys corrected by the published restatement. */
  public static final String RECORDS_CORRECTED = "tidemark.records-corrected";
  /** Late dimension changes applied by the published restatement. */
  public static final String CHANGES_APPLIED = "tidemark.changes-applied";
  /** The audit's verdict: {@code passed} or {@code failed}. */
  public static final String AUDIT = "tidemark.audit";
  /** How many checks the audit ran. */
  public static final String AUDIT_CHECKS = "tidemark.audit-checks";
  /** The first failed check, as printed. */
  public static final String AUDIT_FAILURE = "tidemark.audit-failure";
  /** Values of {@link #AUDIT}. */
  public static final String PASSED = "passed";
  public static final String FAILED = "failed";

  // ---- a publish's commit on the published branch (main)

  /** The staging branch's commit the publish made the published branch's (what readers now see). */
  public static final String PUBLISHED = "tidemark.published";
  /** The staging branch published from. */
  public static final String STAGED_ON = "tidemark.staged-on";
  /** Before a table's name: the rows the publish brought to it ({@code tidemark.rows.facts.events}). */
  public static final String ROWS = "tidemark.rows.";
  /** The names of the checks that passed, comma separated. */
  public static final String CHECKS = "tidemark.checks";

  // ---- the marks: how far a restatement read (on its plan commit and on main's merge commit)

  /** Before a raw archive's name: the snapshot of it the run read up to. */
  public static final String MARK_SNAPSHOT = "tidemark.mark.snapshot.";
  /**
   * Before a stream's name: the stream's watermark the run used (an aggregate's windows ending at or before it are
   * final; a dedup's or a dimension's records at or before it).
   */
  public static final String MARK_WATERMARK = "tidemark.mark.watermark.";
  /** On a plan commit, before a mark's own name: the previous published run's value of that mark. */
  public static final String PREVIOUS = "tidemark.previous.";

  private CommitKeys() {}

  /** The key of the previous run's value of {@code mark} on a plan commit. */
  public static String previous(String mark) {
    return PREVIOUS + mark.substring(PREFIX.length());
  }
}
