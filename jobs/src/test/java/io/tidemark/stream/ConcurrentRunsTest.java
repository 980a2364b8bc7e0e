package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What `stream all` throws when its runs fail: every failure once, the first first, none hiding another. */
class ConcurrentRunsTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkSession.builder().master("local[1]").appName("ConcurrentRunsTest")
        .config("spark.ui.enabled", "false").config("spark.scheduler.mode", "FAIR").getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static ConcurrentRuns.Run failing(String lane, RuntimeException e) {
    return new ConcurrentRuns.Run(lane, () -> {
      throw e;
    });
  }

  private static ConcurrentRuns.Run committing(String lane) {
    return new ConcurrentRuns.Run(lane, () -> RunReport.of(lane, "row", List.of(), new java.util.HashMap<>(), 0.1));
  }

  @Test
  void twoLanesFailingWithTheSameExceptionReportItOnce() {
    // what two runs get from one thing they share, e.g. the table both record their batches in, failing once
    IllegalStateException shared = new IllegalStateException("cannot load table audit.stream_batches: timeout");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(failing("raw", shared),
        committing("dedup"), failing("windowed-counts", shared)));

    Throwable thrown = catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes));

    assertThat(thrown).as("the failure itself, not Self-suppression not permitted").isSameAs(shared);
    assertThat(shared.getSuppressed()).isEmpty();
  }

  @Test
  void distinctFailuresAreEachReportedTheFirstFirst() {
    StreamException counts = new StreamException("windowed-counts failed: CommitFailedException: conflict");
    StreamException dedup = new StreamException("dedup failed: IOException: gone");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(committing("raw"),
        failing("windowed-counts", counts), failing("dedup", dedup), failing("scd2", counts)));

    Throwable thrown = catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes));

    assertThat(thrown).isInstanceOf(StreamsFailed.class).hasCause(counts)
        .hasMessageStartingWith("windowed-counts failed: CommitFailedException: conflict (and 1 more: dedup failed");
    assertThat(((StreamsFailed) thrown).failures()).containsExactly(counts, dedup);
    assertThat(thrown.getSuppressed()).containsExactly(dedup);
    assertThat(counts.getSuppressed()).as("a run's failure is left as it was").isEmpty();
  }

  @Test
  void theRecordFailingBesideARunComesAfterIt() {
    StreamException counts = new StreamException("windowed-counts failed: boom");
    IllegalStateException record = new IllegalStateException("cannot commit audit.stream_batches");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(committing("raw"),
        failing("windowed-counts", counts)));

    Throwable thrown = catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes, record));

    assertThat(((StreamsFailed) thrown).failures()).containsExactly(counts, record);
  }

  @Test
  void theRecordFailingWithARunsOwnExceptionIsReportedOnce() {
    IllegalStateException shared = new IllegalStateException("cannot load table audit.stream_batches");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(failing("raw", shared)));

    assertThat(catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes, shared))).isSameAs(shared);
  }

  @Test
  void theRecordFailingAloneIsThrownAsItIs() {
    IllegalStateException record = new IllegalStateException("cannot commit audit.stream_batches");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(committing("raw")));

    assertThat(catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes, record))).isSameAs(record);
    assertThat(ConcurrentRuns.reportsOf(outcomes, (Throwable) null)).hasSize(1);
  }

  @Test
  void anErrorIsThrownAsItIs() {
    OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
    List<ConcurrentRuns.Outcome> outcomes = ConcurrentRuns.run(spark, List.of(new ConcurrentRuns.Run("raw", () -> {
      throw oom;
    }), committing("dedup")));

    assertThat(catchThrowable(() -> ConcurrentRuns.reportsOf(outcomes))).isSameAs(oom);
  }
}
