package io.tidemark.cli;

import io.tidemark.audit.LandedLines;
import io.tidemark.audit.Scd2Invariants;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.core.Aggregation;
import io.tidemark.pipeline.Aggregate;
import io.tidemark.pipeline.DimensionFeed;
import io.tidemark.pipeline.Feed;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.core.Lines;
import io.tidemark.audit.AuditCheck;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefException;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.nessie.RefNames;
import io.tidemark.publish.Publisher;
import io.tidemark.report.ArrivalRuns;
import io.tidemark.stream.StreamBatches;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What a person checks after the arrivals went through: the SCD2 dimension keeps its invariants, every landed
 * line is either archived or quarantined, and which windows are final. Read-only; exit 1 names what is wrong.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = {"Check the tables on the configured branch after the streams ran; exit 1 when a check fails.",
        "The SCD2 invariants of each dimension (one open version, no overlap, no gap but after a delete, "
            + "equal to the rebuild from its change log), and for each feed raw rows + rejected lines = lines "
            + "landed (of the files under the landing prefix); then the finalized windows are printed and, per "
            + "arrival, what the stream runs recorded in the stream-batches table. Changes nothing."})
final class CheckCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--prefix", paramLabel = "<prefix>", defaultValue = "",
      description = "Landing prefix the lines were landed under, as given to `land --prefix` (default: none).")
  String prefix;

  @Option(names = "--branch", paramLabel = "<ref>",
      description = "Check this branch or tag instead of TIDEMARK_NESSIE_REF: the staging branch (TIDEMARK_STAGING_BRANCH, "
          + "what waits to be published) or a rejected-<hash> tag a failed publish left (default: "
          + "TIDEMARK_NESSIE_REF, the published branch).")
  String branch;

  @Option(names = "--report",
      description = "Then write the pipeline report (as `tidemark report` does) to <home>/reports/pipeline.html.")
  boolean report;

  @Override
  public Integer call() throws java.io.IOException {
    TidemarkConfig root = Tidemark.root(spec).config();
    TidemarkConfig c = branch == null || branch.equals(root.publishedRef()) ? root
        : branch.equals(root.stagingBranch()) ? root.writing() : root.with(java.util.Map.of(Setting.NESSIE_REF, branch));
    PrintWriter out = spec.commandLine().getOut();
    out.println("checking branch " + c.nessieRef());
    List<String> failed = new ArrayList<>();
    try (Lakehouse lh = Lakehouse.open(c, "tidemark check")) {
      SparkSession spark = lh.spark();

      Pipeline p = c.pipeline();
      for (DimensionFeed d : p.dimensions()) {
        List<Scd2Invariants.Violation> violations = Scd2Invariants.check(spark, d.table(), Optional.of(d.changes()),
            d.dimension());
        long versions = spark.table(d.table().sql()).count();
        out.println("scd2 invariants of " + d.table() + " (" + versions + " version(s)): "
            + (violations.isEmpty() ? "ok" : violations.size() + " broken"));
        violations.forEach(v -> out.println("  " + v));
        if (!violations.isEmpty()) {
          failed.add("the SCD2 invariants of " + d.table() + " (" + violations.size() + " broken, listed above)");
        }
      }

      LandedLines lines = new LandedLines(spark, lh.storage(), c);
      for (Feed d : p.feeds()) {
        LandedLines.FeedLines f = lines.of(d, prefix);
        Lines.Account a = f.account();
        out.printf("%s: raw %d + rejected %d = %d, lines landed %d in %d file(s) under %s: %s%n", d.name(),
            a.archived(), a.quarantined(), a.accounted(), a.landed(), f.files(), f.source(),
            a.balanced() ? "ok" : "MISMATCH");
        if (!a.balanced()) {
          failed.add(d.name() + ": raw + rejected = " + a.accounted() + " but " + a.landed() + " line(s) landed"
              + (a.accounted() < a.landed() ? " (the raw stream has not read them all: tidemark stream "
              + d.raw().stream() + ")" : ""));
        }
      }

      if (branch != null && (branch.equals(root.stagingBranch()) || branch.startsWith(RefNames.REJECTED))) {
        // what waits to be published, or was refused: the publish checks too, as a publish of it runs them (a row
        // written by hand is none of the whole history's checks above)
        publishChecks(root, lh, branch, out, failed);
      }

      for (Aggregate a : p.aggregates()) {
        Aggregation rule = a.rule();
        out.println("finalized windows in " + a.table() + ":");
        List<String> order = new ArrayList<>(List.of(rule.windowStart().name()));
        rule.groupBy().forEach(g -> order.add(g.name()));
        new ResultPrinter(ResultPrinter.Format.table, 1000).print(spark.sql("SELECT " + rule.schema().columnList()
            + " FROM " + a.table().sql() + " ORDER BY " + String.join(", ", order)), out,
            spec.commandLine().getErr());
      }

      // what the expectations found, per arrival and the version of the rules that judged it: a warn's count shows
      // here only; a fail's refusal is the publish check's (above, on the staging branch or a rejected-* tag)
      io.tidemark.config.TableName judged = p.shared().expectations();
      if (spark.catalog().tableExists(judged.toString())) {
        out.println("expectations per arrival, as recorded in " + judged + ":");
        new ResultPrinter(ResultPrinter.Format.table, 1000).print(spark.sql(io.tidemark.core.ExpectationColumns
            .perArrival(judged.sql())), out, spec.commandLine().getErr());
      }

      out.println("stream runs per arrival, as recorded in " + p.shared().streamBatches() + ":");
      ArrivalRuns.print(ArrivalRuns.of(StreamBatches.read(spark, p.shared().streamBatches()), p.streamNames()), out);
      if (report) {
        ReportCommand.write(lh, null, out);
      }
    }
    out.flush();
    if (!failed.isEmpty()) {
      throw new CheckFailed("check failed on " + c.nessieRef() + ": " + String.join("; ", failed) + "; see "
          + CheckFailed.RECIPE);
    }
    out.println("check: ok");
    out.flush();
    return 0;
  }

  /** The publish checks of what {@code ref} (the staging branch, a refused commit's tag) holds beyond main. */
  private static void publishChecks(TidemarkConfig root, Lakehouse lh, String ref, PrintWriter out,
                                    List<String> failed) {
    String hash;
    try (NessieRefs refs = new NessieRefs(lh.endpoints())) {
      hash = refs.hash(ref).orElseThrow(() -> new NessieRefException("no branch or tag " + ref + " in Nessie"));
    }
    try (Lakehouse writer = Lakehouse.attach(root.writing(), lh.endpoints(), lh.spark())) {
      List<AuditCheck> checks = new Publisher(writer).checksOf(hash);
      out.println("publish checks of " + ref + " (what " + root.publishedRef() + " lacks of it): "
          + (checks.isEmpty() ? "nothing to publish" : ""));
      checks.forEach(ch -> out.println("  " + ch));
      checks.stream().filter(ch -> !ch.passed()).forEach(ch -> failed.add("publish check " + ch.name() + ": "
          + ch.detail()));
    }
  }
}
