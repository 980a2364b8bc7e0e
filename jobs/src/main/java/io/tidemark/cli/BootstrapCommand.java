package io.tidemark.cli;

import io.tidemark.lakehouse.Bootstrap;
import io.tidemark.lakehouse.Lakehouse;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "bootstrap", mixinStandardHelpOptions = true,
    description = {"Create the buckets, the namespaces and every table (Iceberg format v2, partitioned).",
        "Idempotent: what exists is checked, not recreated, and a second run makes no Nessie commit."})
final class BootstrapCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config(), "tidemark bootstrap")) {
      print(spec.commandLine().getOut(), Bootstrap.run(lh.spark(), lh.storage(), lh.config()));
    }
    return 0;
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
