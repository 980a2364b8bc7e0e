package io.tidemark.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.tables.TableCatalog;
import io.tidemark.lakehouse.tables.TableDefinition;
import io.tidemark.testing.Cli;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BootstrapIT extends StackTest {
  private final NessieRest nessie = stack.nessie();

  @Test
  void secondBootstrapChangesNothingAndMakesNoCommit() {
    List<String> before = nessie.log(stack.config().nessieRef());
    Bootstrap.Result again = Bootstrap.run(spark, stack.lakehouse().storage(), stack.config());
    assertThat(again.changedNothing()).as("second run: %s", again).isTrue();
    assertThat(again.unchangedTables()).hasSize(SeedTables.of(stack.config()).all().size());
    assertThat(nessie.log(stack.config().nessieRef())).as("Nessie commit log of the staging branch")
        .isEqualTo(before);
  }

  @Test
  void everyTableIsIcebergV2PartitionedAsDesigned() throws Exception {
    for (TableDefinition d : TableCatalog.all(stack.config().pipeline())) {
      String ddl = spark.sql("SHOW CREATE TABLE " + d.name().sql()).first().getString(0);
      assertThat(ddl).as("%s", d.name()).contains("USING iceberg").contains("'format-version' = '2'");
      org.apache.iceberg.Table t = org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark, d.name().toString());
      List<String> spec = t.spec().fields().stream()
          .map(f -> f.transform() + "(" + t.schema().findColumnName(f.sourceId()) + ")").toList();
      List<String> designed = d.partitioning().stream()
          .map(p -> p.replaceAll("^days\\((\\w+)\\)$", "day($1)")
              .replaceAll("^bucket\\((\\d+), (\\w+)\\)$", "bucket[$1]($2)")).toList();
      assertThat(spec).as("%s partitioning", d.name()).isEqualTo(designed);
      assertThat(spark.table(d.name().sql()).columns()).as("%s columns", d.name())
          .containsExactlyElementsOf(d.columns().keySet());
    }
    assertThat(stack.lakehouse().storage().bucketExists(stack.config().landingBucket())).isTrue();
    assertThat(stack.lakehouse().storage().bucketExists(stack.config().warehouseBucket())).isTrue();
  }

  /**
   * The command itself, twice, on fresh table names (the second in this JVM): the second run leaves the commit log
   * as it was.
   */
  @Test
  void bootstrapCommandTwiceGivesTheSameCommitLog() {
    String ns = TestStack.unique("boot");
    Map<String, String> env = stack.env(stack.config().scoped(ns, tmp));
    Cli.Result first = Cli.run(env, "bootstrap");
    assertThat(first.exitCode()).as("%s", first).isZero();
    assertThat(first.out()).contains("namespaces created: " + ns).contains("tables created: " + ns + ".raw_events");
    List<String> afterFirst = nessie.log(stack.config().nessieRef());

    Cli.Result second = Cli.inProcess(env, "bootstrap");
    assertThat(second.exitCode()).as("%s", second).isZero();
    assertThat(second.out()).contains("bootstrap: nothing to do, everything exists");
    assertThat(nessie.log(stack.config().nessieRef())).as("commit log after the second bootstrap")
        .isEqualTo(afterFirst);
  }

  @Test
  void aMissingColumnIsAddedAWrongTypeIsRefused() {
    String ns = TestStack.unique("evolve");
    spark.sql("CREATE NAMESPACE `" + ns + "`");
    spark.sql("CREATE TABLE `" + ns + "`.facts_events (event_id INT, company_id STRING, amount DOUBLE) USING "
        + "iceberg TBLPROPERTIES ('format-version'='2')");
    spark.sql("CREATE TABLE `" + ns + "`.facts_event_counts (company_id STRING, w_start STRING, n BIGINT) USING "
        + "iceberg");
    TidemarkConfig config = stack.config().scoped(ns, tmp);
    TableDefinition events = TableCatalog.deduplicated(SeedTables.of(config).events(), Seed.EVENTS,
        Seed.EVENTS_FEED.dedupWatermark());
    assertThat(events.name()).isEqualTo(new TableName(ns, "facts_events"));

    assertThat(Bootstrap.reconcile(spark, events)).as("event_ts added, gc settings set").isTrue();
    assertThat(spark.table(events.name().sql()).columns()).contains("event_ts");
    assertThat(Bootstrap.reconcile(spark, events)).as("second reconcile").isFalse();

    TableDefinition counts = TableCatalog.aggregate(SeedTables.of(config).eventCounts(), Seed.COUNTS_AGGREGATE);
    assertThatThrownBy(() -> Bootstrap.reconcile(spark, counts))
        .isInstanceOf(Bootstrap.SchemaMismatchException.class)
        .hasMessage("table " + ns + ".facts_event_counts: column w_start is STRING, expected TIMESTAMP; rename or "
            + "drop the table, then run: tidemark bootstrap");
  }
}
