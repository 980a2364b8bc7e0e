package io.tidemark.cli;

import io.tidemark.Timings;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.publish.PublishRefused;
import io.tidemark.publish.Publisher;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "publish", mixinStandardHelpOptions = true,
    description = {"Check what is staged and, when every check passes, merge it into main in one commit.",
        "What the streams (and the restatement, and compaction) committed to the staging branch "
            + "(TIDEMARK_STAGING_BRANCH) since the last publish becomes the published branch's (TIDEMARK_NESSIE_REF) "
            + "in one Nessie merge: readers of main see whole, checked arrivals.",
        "The checks look at what was staged only: every landed line read is archived or quarantined, the SCD2 "
            + "invariants on the dimensions' keys changed, the windows finalized, the same arrivals in every stream of a "
            + "feed, and no write by anyone but tidemark's jobs. Nothing staged: nothing done.",
        "A failed check: exit 1, every check's result printed, the published branch unchanged, the staged commit "
            + "tagged rejected-<hash>, and one line naming the check and its recipe in docs/troubleshooting.md."})
final class PublishCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--dry-run", paramLabel = "<bool>", arity = "0..1", fallbackValue = "true",
      description = "Run the checks and say what would be published; publish nothing, tag nothing.")
  boolean dryRun;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config().writing(), "tidemark publish")) {
      Publisher.Result r = new Publisher(lh, Tidemark.root(spec).crashPoints(), Timings.NONE).publish(dryRun);
      r.checks().forEach(c -> out.println("  " + c));
      out.println(r.summary());
    } catch (PublishRefused refused) {
      // what each check found goes to the output, as a publish that passes prints it; the error is its one line
      refused.details().forEach(out::println);
      out.flush();
      throw refused;
    }
    out.flush();
    return 0;
  }
}
