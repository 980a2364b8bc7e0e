package io.tidemark.restate;

import io.tidemark.CrashPoints;
import io.tidemark.TidemarkException;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.CorrectionSet;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;

/**
 * What the stages of one run share in one process: the run's options, the Nessie client and the run's ledger,
 * the SparkSession (started on first use: a stage that finds its work done needs Nessie only), and the
 * corrections of a plan once read, so that stages run one after another in one process read them once.
 */
final class RunContext implements AutoCloseable {
  final Lakehouse lakehouse;
  final TidemarkConfig config;
  final Pipeline pipeline;
  final Restatement.Options options;
  /** The branch a run is cut from and merged into: the staging branch, where every writer commits. */
  final String staging;
  final NessieRefs refs;
  final RunLedger ledger;
  /** Where the crash tests may halt the run. */
  final CrashPoints crash;
  private SparkSession spark;
  private final Map<String, CorrectionSet> corrections = new HashMap<>();
  /** The checks of the newest audit this process ran. */
  List<AuditCheck> lastChecks = List.of();

  RunContext(Lakehouse lakehouse, Restatement.Options options, CrashPoints crash) {
    this.lakehouse = lakehouse;
    this.config = lakehouse.config();
    this.pipeline = config.pipeline();
    this.options = options;
    this.crash = crash;
    this.staging = config.nessieRef();
    this.refs = new NessieRefs(lakehouse.endpoints());
    this.ledger = new RunLedger(refs, options.refPrefix(), options.runId(), staging, !options.generatedId());
  }

  String runId() {
    return options.runId();
  }

  SparkSession spark() {
    if (spark == null) {
      spark = lakehouse.spark();
    }
    return spark;
  }

  /** A table the restatement needs, with a one-line message naming the fix when it is missing. */
  static Table table(PinnedTables tables, TableName name) {
    try {
      return tables.get(name);
    } catch (IllegalStateException e) {
      throw new RestatementException("cannot load table " + name + " (" + TidemarkException.firstLine(e)
          + "): run `tidemark bootstrap`");
    }
  }

  /** What a plan recorded to correct: computed in this process already, or read from its branch. */
  CorrectionSet corrections(Plan plan) {
    if (plan.correctionsSnapshot().isEmpty()) {
      return CorrectionSet.empty();
    }
    return corrections.computeIfAbsent(plan.hash(), h -> {
      PinnedTables at = PinnedTables.at(spark(), plan.branch(), h);
      return PlannedCorrections.read(table(at, pipeline.shared().restatementPlan()), plan.correctionsSnapshot().get(),
          runId(), plan.attempt(), PlannedCorrections.shapes(at, pipeline));
    });
  }

  void remember(Plan plan, CorrectionSet c) {
    corrections.put(plan.hash(), c);
  }

  @Override
  public void close() {
    refs.close();
  }
}
