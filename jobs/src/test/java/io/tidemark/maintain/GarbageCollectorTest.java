package io.tidemark.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GarbageCollectorTest {
  @Test
  void warehouseLocationsSplitIntoBucketAndPrefix() {
    assertThat(GarbageCollector.bucketAndPrefix("s3://tidemark-warehouse/warehouse"))
        .containsExactly("tidemark-warehouse", "warehouse/");
    assertThat(GarbageCollector.bucketAndPrefix("s3a://wh/a/b/")).containsExactly("wh", "a/b/");
    assertThat(GarbageCollector.bucketAndPrefix("s3://wh")).containsExactly("wh", "");
  }

  @Test
  void filesAreComparedAsBucketAndKeyWhateverTheScheme() {
    assertThat(ReachableFiles.key("s3://wh/warehouse/t/data/f.parquet"))
        .isEqualTo(ReachableFiles.key("s3a://wh/warehouse/t/data/f.parquet"))
        .isEqualTo("wh/warehouse/t/data/f.parquet");
  }
}
