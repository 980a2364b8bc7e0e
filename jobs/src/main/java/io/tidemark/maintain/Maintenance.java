package io.tidemark.maintain;

import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.config.TableName;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.util.List;
import java.util.function.Consumer;

/**
 * The maintenance jobs on a lakehouse, in the order a schedule runs them: compaction, GC, branch retention. The
 * lakehouse is a writer's ({@link io.tidemark.config.TidemarkConfig#writing}): compaction commits on the staging
 * branch, like every writer, and reaches the published branch with the next {@code tidemark publish}.
 */
public final class Maintenance {
  private final Lakehouse lakehouse;
  private final Consumer<String> out;

  public Maintenance(Lakehouse lakehouse, Consumer<String> out) {
    this.lakehouse = lakehouse;
    this.out = out;
  }

  public List<Compaction.Result> compact(List<TableName> tables, Compaction.Options options) {
    var config = lakehouse.config();
    out.accept("== compaction on " + config.nessieRef() + (config.isWriting() ? " (reaches " + config.publishedRef()
        + " with the next `tidemark publish`)" : "") + (options.dryRun() ? " (dry run)" : ""));
    return new Compaction(lakehouse.spark(), options).run(tables, out);
  }

  public GarbageCollector.Result gc(GarbageCollector.Options options) {
    out.accept("== garbage collection over every branch and tag" + (options.dryRun() ? " (dry run)" : ""));
    return new GarbageCollector(lakehouse.config(), lakehouse.endpoints(), lakehouse.storage()).run(options, out);
  }

  public List<BranchRetention.Decision> branches(BranchRetention.Options options) {
    out.accept("== restatement branches" + (options.dryRun() ? " (dry run)" : ""));
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      return new BranchRetention(refs).run(options, out);
    }
  }

  /** The {@code rejected-*} tags publish left on refused arrivals: they go beyond {@code options.maxAge()}. */
  public List<BranchRetention.TagDecision> rejected(BranchRetention.Options options) {
    out.accept("== tags of refused arrivals (" + RefNames.REJECTED + "*)"
        + (options.dryRun() ? " (dry run)" : ""));
    try (NessieRefs refs = new NessieRefs(lakehouse.endpoints())) {
      return new BranchRetention(refs).rejected(options, out);
    }
  }

  public LandingCleanup.Result landing(LandingCleanup.Options options) {
    out.accept("== landing zone" + (options.dryRun() ? " (dry run)" : ""));
    return new LandingCleanup(lakehouse.spark(), lakehouse.config(), lakehouse.storage()).run(options, out);
  }
}
