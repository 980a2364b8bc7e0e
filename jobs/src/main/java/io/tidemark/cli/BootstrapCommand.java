package io.tidemark.cli;

import io.tidemark.bootstrap.Bootstrap;
import io.tidemark.lakehouse.Lakehouse;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "bootstrap", mixinStandardHelpOptions = true,
    description = {"Create the buckets, the staging branch, the namespaces and every table.",
        "The staging branch (TIDEMARK_STAGING_BRANCH) is made from TIDEMARK_NESSIE_REF, the tables (Iceberg format "
            + "v2, partitioned) on it; they are published at once when nothing else waits to be published, else with "
            + "the next `tidemark publish`.",
        "Idempotent: what exists is checked, not recreated, and a second run makes no Nessie commit."})
final class BootstrapCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config().writing(), "tidemark bootstrap")) {
      print(spec.commandLine().getOut(), Bootstrap.setUp(lh), lh.config());
    }
    return 0;
  }

  static void print(PrintWriter out, Bootstrap.Setup s, io.tidemark.config.TidemarkConfig config) {
    if (s.branchMade() != null) {
      out.println("branch created: " + s.branchMade() + " (from " + config.publishedRef() + ")");
    }
    s.promoted().forEach(out::println);
    print(out, s.result());
    if (s.publishedAt() != null) {
      out.println("published to " + config.publishedRef() + " (" + s.publishedAt() + ")");
    } else if (!s.result().changedNothing()) {
      out.println("on " + config.stagingBranch() + "; other changes wait there: `tidemark publish` publishes them "
          + "with these");
    }
  }

  static void print(PrintWriter out, Bootstrap.Result r) {
    line(out, "buckets created", r.createdBuckets());
    line(out, "namespaces created", r.createdNamespaces());
    line(out, "tables created", r.createdTables());
    line(out, "tables altered", r.alteredTables());
    line(out, "tables unchanged", r.unchangedTables());
    out.println(r.changedNothing() ? "bootstrap: nothing to do, everything exists" : "bootstrap: done");
  }

  private static void line(PrintWriter out, String what, List<String> items) {
    if (!items.isEmpty()) {
      out.println(what + ": " + String.join(", ", items));
    }
  }
}
