package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkCommits;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.stream.Provenance;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.util.List;
import org.apache.spark.sql.execution.datasources.v2.CatalogUtils;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The fences that need the real Nessie server: the catalog the Nessie SQL extensions accept, the commits it narrates. */
@Tag("quick")
class FencesIT extends StackTest {
  @Test
  void theNessieSqlExtensionsAcceptTheCatalog() {
    Fence.holds(NessieCatalog.class, "the Nessie Spark extensions accepting a catalog whose class's simple name is "
        + "NessieCatalog", () -> assertThat(CatalogUtils.buildBridge(spark.sessionState().catalogManager()
        .catalog(SparkSessions.CATALOG), SparkSessions.CATALOG).getClass().getSimpleName())
        .isEqualTo("NessieCatalogBridge"));
  }

  @Test
  void aCommitOfAStreamTellsItsStoryOnTheBranchAndOnATableReference() {
    Fence.holds(NarratingNessieClient.class, "Iceberg's NessieIcebergClient.commitTable sending its commit metadata "
        + "through getApi().commitMultipleOperations().commitMeta(...) on the calling thread, and withReference "
        + "giving a table reference a client of its own", () -> {
      TableName table = fx.events("narrated");
      String ref = stack.config().nessieRef();
      insert(table.sql(), 7);
      assertThat(newest(ref, table)).isEqualTo(new NessieRest.Commit("tidemark-stream/fence",
          "fence batch 7 (arrival 3): append 1 row(s) to " + table));

      String branch = TestStack.unique("fence");
      try (NessieRefs refs = new NessieRefs(stack.endpoints())) {
        refs.ensureBranch(branch, ref);
        insert(table.sqlAt(branch), 8);
        assertThat(newest(branch, table)).isEqualTo(new NessieRest.Commit("tidemark-stream/fence",
            "fence batch 8 (arrival 3): append 1 row(s) to " + table));
        refs.deleteBranch(branch);
      }
    });
  }

  private void insert(String table, long batch) {
    SparkCommits.withSummary(Provenance.ofBatch("fence", "fence-query", batch, 0, "3"), () -> spark.sql(
        "INSERT INTO " + table + " VALUES (1, 'c1', 1.0, TIMESTAMP '2026-01-01 00:00:00')"));
  }

  private NessieRest.Commit newest(String ref, TableName table) {
    List<NessieRest.Commit> log = stack.nessie().commits(ref);
    return log.stream().filter(c -> c.message().contains(table.toString())).findFirst()
        .orElseThrow(() -> new AssertionError("no commit of " + table + " on " + ref + ": " + log));
  }
}
