package io.tidemark.lakehouse.spark;

import io.tidemark.fence.NessieCatalog;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;

/**
 * How much a command made Spark and the catalog do, counted over the JVM: Spark jobs started and tables loaded
 * from the Nessie catalog. Counts that the machine's load does not blur, for {@code --debug} and the benchmarks:
 * where a restatement of a few late events spends its time is in how many of each it needs.
 */
public final class Work {
  private static final AtomicLong JOBS = new AtomicLong();
  private static final Map<SparkContext, Boolean> WATCHED = Collections.synchronizedMap(new WeakHashMap<>());

  private Work() {}

  /** Counts the jobs of this session's SparkContext from now on (once per context). */
  static void watch(SparkSession spark) {
    SparkContext sc = spark.sparkContext();
    if (WATCHED.putIfAbsent(sc, Boolean.TRUE) == null) {
      sc.addSparkListener(new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart jobStart) {
          JOBS.incrementAndGet();
        }
      });
    }
  }

  /** The counts now; subtract two to get what happened between them. */
  public static Counts now() {
    return new Counts(JOBS.get(), NessieCatalog.tableLoads());
  }

  public record Counts(long sparkJobs, long tableLoads) {
    public Counts since(Counts before) {
      return new Counts(sparkJobs - before.sparkJobs, tableLoads - before.tableLoads);
    }

    @Override
    public String toString() {
      return sparkJobs + " Spark job(s), " + tableLoads + " table load(s)";
    }
  }
}
