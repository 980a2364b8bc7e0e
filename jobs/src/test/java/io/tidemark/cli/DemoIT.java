package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.testing.Cli;
import io.tidemark.testing.StackTest;
import io.tidemark.testing.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code tidemark demo}, the README's first command, on the shared stack in namespaces, buckets and checkpoints of its
 * own (what another test wrote cannot show up in its tables): every step shows, and a second run changes nothing. Its
 * tables are then written for the Airflow test (dags/tests/test_native_stack.py), which compares the tables its DAG
 * runs made with them instead of running the demo once more.
 */
class DemoIT extends StackTest {
  private static final Path REPO = Path.of(System.getProperty("tidemark.repo.dir", "..")).toAbsolutePath().normalize();

  @Test
  void demoRunsEveryStepAndIsSafeToRunAgain() throws IOException {
    String name = TestStack.unique("demo");
    TidemarkConfig config = stack.config().scoped(name, tmp.resolve("checkpoints"));
    Map<String, String> env = stack.env(config);
    Cli.Result first = Cli.run(env, "demo");
    assertThat(first.exitCode()).as("%s", first).isZero();
    assertThat(first.out())
        .contains("== 1. services", "== 2. bootstrap", "== 3. arrivals", "== 4. what is in the landing",
            "== 5. the tables on branch main", "== where to look")
        .contains("window [2026-01-01 00:00,00:05) c1 finalized: n=4",
            "late event 7 (c1 at 2026-01-01 00:03:00) dropped by the counts",
            "dedup: 2 batch(es), 9 lines read, 8 row(s) into " + config.tables().events() + ", 1 duplicate(s) dropped",
            "company dimension (SCD2) now:", "== 6. restatement",
            "window 2026-01-01T00:00:00Z c1: n 4 -> 6", "window 2026-01-01T00:05:00Z c3: n (none) -> 1",
            "PASS counts: DuckDB recount from the raw archive", "lateness for the windowed counts")
        .containsPattern("published to main \\([0-9a-f]+\\), tagged restated-")
        .containsPattern("\\| c1\\s+\\| Acme Corp \\| gold\\s+\\| 01-01 00:30 \\| 01-01 00:45 \\| false")
        .contains("/events/arrival=0003/seed-counts.jsonl", "/companies/arrival=0004/seed-scd2.jsonl")
        .containsPattern(config.tables().eventCounts().toString().replace(".", "\\.") + "\\s+\\d+ rows")
        .contains("Nessie UI (branches, commits, tables): " + stack.endpoints().nessieUi());
    assertThat(first.errLines()).as("nothing on stderr").isEmpty();
    writeTablesForTheAirflowTest(config, env);

    String mainBefore = stack.nessie().hash("main");
    Cli.Result second = Cli.run(env, "demo");
    assertThat(second.exitCode()).as("%s", second).isZero();
    assertThat(second.out()).contains("bootstrap: nothing to do").doesNotContain("  landed")
        .contains("windowed-counts: 0 batch(es), 0 lines read")
        .contains("nothing to restate: no late data since the last restatement; no branch, no commit");
    assertThat(second.out().lines().filter(l -> l.contains("already there, unchanged")).count())
        .as("every seed file already landed").isEqualTo(10);
    assertThat(stack.nessie().hash("main")).isEqualTo(mainBefore);
  }

  /**
   * The demo's tables as dags/tests/pipeline_tables.json selects them, through {@code tidemark sql --format json}
   * as the Airflow test reads its own, into target/airflow-tests/demo-tables.json with the SHA-256 of the jar that
   * made them: the Airflow test uses them only when its jar is the same, and runs the demo itself otherwise.
   */
  private void writeTablesForTheAirflowTest(TidemarkConfig config, Map<String, String> env) throws IOException {
    ObjectMapper json = new ObjectMapper();
    JsonNode spec = json.readTree(REPO.resolve("dags/tests/pipeline_tables.json").toFile());
    // a scoped pipeline's tables, in the order of the default ones: the default name is the name in the spec
    List<TableName> defaults = TidemarkConfig.of(Map.of(), Map.of()).tables().all();
    List<TableName> scoped = config.tables().all();
    List<String> selects = new ArrayList<>();
    for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
      String table = it.next();
      if (!table.startsWith("_")) {
        int i = defaults.stream().map(TableName::toString).toList().indexOf(table);
        assertThat(i).as("%s is a table of the pipeline", table).isNotNegative();
        selects.add("SELECT '" + table + "' AS t, to_json(struct(" + spec.get(table).asText() + ")) AS j FROM "
            + scoped.get(i).sql());
      }
    }
    Cli.Result rows = Cli.inProcess(env, "sql", "--format", "json", String.join(" UNION ALL ", selects));
    assertThat(rows.exitCode()).as("%s", rows).isZero();
    ObjectNode out = json.createObjectNode();
    out.put("jar_sha256", sha256(Path.of(System.getProperty("tidemark.jar"))));
    out.set("rows", json.readTree(rows.out()));
    Path file = Files.createDirectories(REPO.resolve("target/airflow-tests")).resolve("demo-tables.json");
    // the Airflow test may be waiting for it (./run-tests runs it alongside): it must never see half a file
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, json.writeValueAsString(out));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
