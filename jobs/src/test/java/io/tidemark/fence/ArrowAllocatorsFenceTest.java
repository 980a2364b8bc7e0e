package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.driver.ResidentJvm;
import io.tidemark.testing.LocalSpark;
import java.nio.file.Path;
import org.apache.iceberg.arrow.ArrowAllocation;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why the resident driver reads Iceberg tables without vectorization ({@link ResidentJvm}): a vectorized read leaves a
 * child of Iceberg's static Arrow root allocator behind for every file it read, for the JVM's life; a row read leaves
 * none. Should a pinned Iceberg close them, the first half fails: the driver may then read vectorized again.
 */
class ArrowAllocatorsFenceTest {
  @Test
  void aVectorizedReadLeavesAnAllocatorPerFileForEverARowReadNone(@TempDir Path dir) {
    Fence.holds(ResidentJvm.class, "Iceberg's VectorizedReaderBuilder making a child of ArrowAllocation.rootAllocator() "
        + "it never closes (apache/iceberg#13937), and spark.sql.iceberg.vectorization.enabled", () -> {
      SparkSession s = LocalSpark.get().newSession();
      s.conf().set("spark.sql.catalog.fence_arrow", "org.apache.iceberg.spark.SparkCatalog");
      s.conf().set("spark.sql.catalog.fence_arrow.type", "hadoop");
      s.conf().set("spark.sql.catalog.fence_arrow.warehouse", dir.toUri().toString());
      s.sql("CREATE TABLE fence_arrow.db.t (id BIGINT, name STRING) USING iceberg");
      s.sql("INSERT INTO fence_arrow.db.t VALUES (1, 'a'), (2, 'b')");
      s.sql("INSERT INTO fence_arrow.db.t VALUES (3, 'c')");

      s.conf().set("spark.sql.iceberg.vectorization.enabled", "true");
      long before = children();
      assertThat(s.table("fence_arrow.db.t").collectAsList()).hasSize(3);
      assertThat(children()).as("a vectorized read of two files: their allocators are still there")
          .isGreaterThanOrEqualTo(before + 2);

      s.conf().set("spark.sql.iceberg.vectorization.enabled", "false");
      long rows = children();
      assertThat(s.table("fence_arrow.db.t").collectAsList()).hasSize(3);
      assertThat(children()).as("a row read").isEqualTo(rows);
    });
  }

  private static long children() {
    return ArrowAllocation.rootAllocator().getChildAllocators().size();
  }
}
