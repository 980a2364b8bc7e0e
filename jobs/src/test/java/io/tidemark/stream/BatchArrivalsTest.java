package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BatchArrivalsTest {
  @Test
  void arrivalsOfABatchFromItsFilePaths() {
    assertThat(BatchArrivals.describe(List.of("s3a://l/events/arrival=0003/a.jsonl"))).isEqualTo("3");
    assertThat(BatchArrivals.describe(List.of("s3a://l/p/events/arrival=0002/a.jsonl",
        "s3a://l/p/events/arrival=0001/b.jsonl", "s3a://l/p/events/arrival=0003/c.jsonl"))).isEqualTo("1-3");
    assertThat(BatchArrivals.describe(List.of("file:/x/arrival=0001/a.jsonl", "file:/x/arrival=0004/a.jsonl")))
        .isEqualTo("1,4");
    assertThat(BatchArrivals.describe(List.of("file:/x/events.jsonl"))).isEmpty();
  }

  @Test
  void theNewestArrivalOfADescription() {
    assertThat(BatchArrivals.newest("3")).isEqualTo(3);
    assertThat(BatchArrivals.newest("1-3")).isEqualTo(3);
    assertThat(BatchArrivals.newest("1,4")).isEqualTo(4);
    assertThat(BatchArrivals.newest("")).isNull();
    assertThat(BatchArrivals.newest(null)).isNull();
  }
}
