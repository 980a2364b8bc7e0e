package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import org.junit.jupiter.api.Test;

/**
 * The sql command. What it reads and prints through its command line in this JVM ({@link Cli#inProcess}); its errors
 * from a JVM of its own, where only the command's one line reaches stderr (the libraries' logs go to the log file).
 */
class SqlIT extends StackTest {
  /** {@code ns.table@branch} reads the branch; main does not see what was written there. */
  @Test
  void readsABranchWithTheAtSyntax() throws Exception {
    String branch = TestStack.unique("sqlit");
    String company = TestStack.unique("c");
    spark.sql("CREATE BRANCH `" + branch + "` IN nessie FROM main");
    spark.sql("INSERT INTO facts.`event_counts@" + branch + "` VALUES ('" + company
        + "', TIMESTAMP '2026-01-01 00:05:00', 7)");

    Cli.Result onBranch = Cli.inProcess(stack.env(), "sql", "--format", "json",
        "SELECT company_id, w_start, n FROM facts.event_counts@" + branch + " WHERE company_id = '" + company + "'");
    assertThat(onBranch.exitCode()).as("%s", onBranch).isZero();
    JsonNode rows = new ObjectMapper().readTree(onBranch.out());
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).get("n").asInt()).isEqualTo(7);
    assertThat(rows.get(0).get("w_start").asText()).isEqualTo("2026-01-01T00:05:00.000Z");

    Cli.Result onMain = Cli.inProcess(stack.env(), "sql", "--format", "csv",
        "SELECT count(*) AS c FROM facts.event_counts WHERE company_id = '" + company + "'");
    assertThat(onMain.out()).isEqualTo("c\n0\n");
  }

  @Test
  void ddlAndAlignedTable() {
    String ns = TestStack.unique("sqlddl");
    Cli.Result ddl = Cli.inProcess(stack.env(), "sql", "CREATE NAMESPACE " + ns);
    assertThat(ddl.exitCode()).as("%s", ddl).isZero();
    assertThat(ddl.out()).isEqualTo("OK\n");
    spark.sql("CREATE TABLE " + ns + ".t (k STRING, v INT) USING iceberg");
    spark.sql("INSERT INTO " + ns + ".t VALUES ('a', 1), ('bbbbbb', NULL)");
    Cli.Result table = Cli.inProcess(stack.env(), "sql", "SELECT * FROM " + ns + ".t ORDER BY k;");
    assertThat(table.exitCode()).as("%s", table).isZero();
    assertThat(table.out()).isEqualTo("""
        +--------+------+
        | k      | v    |
        +--------+------+
        | a      | 1    |
        | bbbbbb | NULL |
        +--------+------+
        (2 rows)
        """);
  }

  @Test
  void badSqlAndUnknownTablesAreOneLineErrors() {
    Cli.Result unknown = Cli.run(stack.env(), "sql", "SELECT * FROM nope.nothing");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.errLines()).as("%s", unknown).filteredOn(l -> l.startsWith("tidemark:"))
        .containsExactly("tidemark: [TABLE_OR_VIEW_NOT_FOUND] The table or view `nope`.`nothing` cannot be found. "
            + "Verify the spelling and correctness of the schema and catalog.");
    assertThat(unknown.err()).doesNotContain("\tat ");

    Cli.Result syntax = Cli.run(stack.env(), "sql", "SELEC 1");
    assertThat(syntax.exitCode()).isEqualTo(1);
    assertThat(syntax.errLines()).filteredOn(l -> l.startsWith("tidemark:")).hasSize(1)
        .allMatch(l -> l.contains("PARSE_SYNTAX_ERROR"));
    assertThat(syntax.out()).isEmpty();

    Cli.Result failedTask = Cli.run(stack.env(), "sql", "SELECT assert_true(id < 0) FROM range(3)");
    assertThat(failedTask.exitCode()).isEqualTo(1);
    assertThat(failedTask.errLines()).as("a failure inside a Spark task: %s", failedTask).hasSize(1);
    assertThat(failedTask.err()).startsWith("tidemark: RuntimeException: ").contains("is not true!")
        .doesNotContain("Job aborted");
  }
}
