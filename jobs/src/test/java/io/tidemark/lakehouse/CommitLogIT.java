package io.tidemark.lakehouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.land.SeedScenarios;
import io.tidemark.testing.Cli;
import io.tidemark.testing.Landing;
import io.tidemark.testing.NessieRest;
import io.tidemark.testing.StackTest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Nessie commit log tells who committed what: the stream, the orchestrator's run, the batch, arrival and rows. */
class CommitLogIT extends StackTest {
  @Test
  void aStreamCommitNamesTheStreamTheRunTheArrivalAndTheRows() {
    Landing landing = stack.landing("log");
    landing.land(SeedScenarios.DEDUP.arrivals().get(0));
    TableName table = fx.events("events");
    Map<String, String> env = new HashMap<>(stack.env());
    env.put("TIDEMARK_RUN_CONTEXT", "airflow tidemark_arrivals/manual__test");
    Cli.Result r = Cli.run(env, "stream", "dedup", "--source", landing.source(SeedScenarios.EVENTS), "--table",
        table.toString(), "--checkpoint", tmp.resolve("cp").toString());
    assertThat(r.exitCode()).as(r.toString()).isZero();

    long rows = spark.table(table.sql()).count();
    List<NessieRest.Commit> log = stack.nessie().commits(stack.config().nessieRef());
    NessieRest.Commit commit = log.stream().filter(c -> c.message().contains(table.toString())).findFirst()
        .orElseThrow(() -> new AssertionError("no commit of " + table + " in " + log));
    assertThat(commit.author()).isEqualTo("tidemark-stream/dedup [airflow tidemark_arrivals/manual__test]");
    assertThat(rows).isPositive();
    assertThat(commit.message()).as("the stream, batch, arrival and rows; no watermark before the first batch ends")
        .isEqualTo("dedup batch 0 (arrival 1): append " + rows + " row(s) to " + table);

    // the next run's batch: the first run ended with a no-data batch, so the query's batch ids and the file source's
    // log numbers part from here on; the commit still names the arrival it read
    landing.land(SeedScenarios.DEDUP.arrivals().get(1));
    r = Cli.run(env, "stream", "dedup", "--source", landing.source(SeedScenarios.EVENTS), "--table", table.toString(),
        "--checkpoint", tmp.resolve("cp").toString());
    assertThat(r.exitCode()).as(r.toString()).isZero();
    NessieRest.Commit second = stack.nessie().commits(stack.config().nessieRef()).stream()
        .filter(c -> c.message().contains(table.toString())).findFirst().orElseThrow();
    assertThat(second.message()).as("the second run's commit").startsWith("dedup batch 2 (arrival 2): append ");
  }
}
