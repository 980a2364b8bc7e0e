package io.tidemark.lakehouse.nessie;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CommitStoryTest {
  @Test
  void aStreamCommitNamesTheStreamTheBatchTheArrivalTheRowsAndTheWatermark() {
    CommitStory s = CommitStory.of("facts.events", "append", Map.of("tidemark.stream", "dedup",
        "tidemark.batch-id", "3", "tidemark.arrivals", "2", "tidemark.watermark", "2026-01-01T00:15:00Z",
        "tidemark.watermark-ms", "1767226500000", "added-records", "5", "other", "x"),
        "airflow tidemark_arrivals/manual__1").orElseThrow();
    assertThat(s.author()).isEqualTo("tidemark-stream/dedup [airflow tidemark_arrivals/manual__1]");
    assertThat(s.message())
        .isEqualTo("dedup batch 3 (arrival 2): append 5 row(s) to facts.events; watermark 2026-01-01T00:15:00Z");
    assertThat(s.properties()).containsEntry("tidemark.batch-id", "3")
        .containsEntry("tidemark.run-context", "airflow tidemark_arrivals/manual__1").doesNotContainKey("other");
  }

  @Test
  void noWatermarkYetIsNotPrintedAndSeveralArrivalsArePlural() {
    CommitStory s = CommitStory.of("raw.events", "append", Map.of("tidemark.stream", "raw", "tidemark.batch-id", "0",
        "tidemark.arrivals", "1-3", "tidemark.watermark", "1970-01-01T00:00:00Z", "tidemark.watermark-ms", "0",
        "added-records", "12"), null).orElseThrow();
    assertThat(s.author()).isEqualTo("tidemark-stream/raw");
    assertThat(s.message()).isEqualTo("raw batch 0 (arrivals 1-3): append 12 row(s) to raw.events");
  }

  @Test
  void aRestatementCommitNamesItsRunAndCountsAddedAndDeletedRows() {
    CommitStory s = CommitStory.of("facts.event_counts", "overwrite", Map.of("tidemark.stream", "restate",
        "tidemark.run-id", "20260101T000000Z-ab12", "added-records", "40", "deleted-records", "39"), " ").orElseThrow();
    assertThat(s.author()).isEqualTo("tidemark-restate/20260101T000000Z-ab12");
    assertThat(s.message())
        .isEqualTo("restatement 20260101T000000Z-ab12: overwrite +40/-39 row(s) in facts.event_counts");
  }

  @Test
  void aCommitWithoutProvenanceKeepsIcebergsOwnMessage() {
    assertThat(CommitStory.of("raw.events", "append", Map.of("added-records", "1"), "ctx")).isEmpty();
  }
}
