package io.tidemark.fence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.driver.ResidentJvm;
import io.tidemark.testing.LocalSpark;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.FileStatusCache;
import org.apache.spark.sql.execution.datasources.FileStatusCache$;
import org.apache.spark.sql.execution.datasources.NoopCache$;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Why the resident driver keeps no file listings ({@link ResidentJvm}): Spark's shared cache keeps the listing of every
 * read of files under a key of that read's own, so two reads of the same directory leave two entries, kept until the
 * cache's size bound; with its size 0 a read gets no cache. Should a pinned Spark share the entries (or drop them), the
 * first half fails: the driver may then keep the cache.
 */
class FileStatusCacheFenceTest {
  @Test
  void everyReadOfFilesLeavesItsListingInTheSharedCacheUnlessItsSizeIsZero(@TempDir Path dir) throws Exception {
    Fence.holds(ResidentJvm.class, "FileStatusCache.getOrCreate giving each read a client of one shared cache "
        + "(SharedInMemoryCache) and NoopCache for spark.sql.hive.filesourcePartitionFileCacheSize 0", () -> {
      Files.writeString(dir.resolve("a.json"), "{\"id\": 1}\n{\"id\": 2}\n");
      SparkSession s = LocalSpark.get().newSession();
      s.conf().set("spark.sql.hive.filesourcePartitionFileCacheSize", Long.toString(250L << 20));
      assertThat(s.read().json(dir.toString()).count()).isEqualTo(2);
      long first = entries();
      assertThat(s.read().json(dir.toString()).count()).isEqualTo(2);
      assertThat(entries()).as("a second read of the same directory: an entry of its own").isGreaterThan(first);

      s.conf().set("spark.sql.hive.filesourcePartitionFileCacheSize", "0");
      assertThat(FileStatusCache.getOrCreate(s)).isSameAs(NoopCache$.MODULE$);
      long none = entries();
      assertThat(s.read().json(dir.toString()).count()).isEqualTo(2);
      assertThat(entries()).as("a read with no cache").isEqualTo(none);
    });
  }

  /** The shared cache's entries (its Guava cache's size). */
  private static long entries() throws ReflectiveOperationException {
    Field shared = FileStatusCache$.class.getDeclaredField("sharedCache");
    shared.setAccessible(true);
    Object cache = shared.get(FileStatusCache$.MODULE$);
    for (Field f : cache.getClass().getDeclaredFields()) {
      if (f.getType().getName().endsWith("guava.cache.Cache")) {
        f.setAccessible(true);
        return (long) f.getType().getMethod("size").invoke(f.get(cache));
      }
    }
    throw new NoSuchFieldException("no Guava cache in " + cache.getClass().getName());
  }
}
