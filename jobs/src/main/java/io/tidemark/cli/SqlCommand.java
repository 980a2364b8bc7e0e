package io.tidemark.cli;

import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.HashPrefixes;
import io.tidemark.lakehouse.spark.RefQualifiedNames;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "sql", mixinStandardHelpOptions = true,
    description = {"Run one Spark SQL statement against the Nessie catalog, on main.",
        "Nessie is Spark's default catalog: `ns.table` needs no prefix, `ns.table@branch` reads another branch or tag "
            + "(`@branch#hash` a commit), and DDL and the Nessie SQL extensions work (CREATE BRANCH, MERGE BRANCH, "
            + "SHOW LOG, ...).",
        "A commit's hash can be given by its beginning, as `tidemark log` shows it (`@branch#08ffc775d2a1`, "
            + "`ASSIGN BRANCH ingest TO ingest AT 08ffc775d2a1 IN nessie`)."})
final class SqlCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Parameters(paramLabel = "<statement>", description = "The statement, in one argument (quote it).")
  String query;

  @Option(names = "--format", paramLabel = "<format>", defaultValue = "table",
      description = "How to print the rows: table (aligned), json (an array of objects) or csv "
          + "(default: ${DEFAULT-VALUE}).")
  ResultPrinter.Format format;

  @Option(names = "--max-rows", paramLabel = "<n>", defaultValue = "10000",
      description = "Print at most this many rows (default: ${DEFAULT-VALUE}).")
  int maxRows;

  @Override
  public Integer call() {
    if (query == null || query.isBlank()) {
      throw new IllegalArgumentException("QUERY is empty");
    }
    try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config(), "tidemark sql")) {
      String statement = fullHashes(lh, query.strip().replaceAll(";\\s*$", ""));
      SparkSession spark = lh.spark();
      Dataset<Row> result = spark.sql(RefQualifiedNames.quote(statement));
      new ResultPrinter(format, maxRows).print(result, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
    return 0;
  }

  /** The statement with the short hashes it gives ({@code AT 08ffc775}, {@code @ingest#08ffc775}) in full. */
  private static String fullHashes(Lakehouse lh, String statement) {
    NessieRefs[] refs = new NessieRefs[1];
    try {
      return HashPrefixes.expand(statement, (ref, prefix) -> {
        if (refs[0] == null) {
          refs[0] = new NessieRefs(lh.endpoints());
        }
        return refs[0].fullHash(ref, prefix);
      });
    } finally {
      if (refs[0] != null) {
        refs[0].close();
      }
    }
  }
}
