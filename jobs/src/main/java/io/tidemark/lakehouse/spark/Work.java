package io.tidemark.lakehouse.spark;

import io.tidemark.CommandScope;
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
 * How much a command made Spark and the catalog do, counted over the command (in a JVM that runs one command, over
 * the JVM): Spark jobs started and tables loaded from the Nessie catalog. Counts that the machine's load does not
 * blur, for {@code --debug} and the benchmarks: where a restatement of a few late events spends its time is in how
 * many of each it needs. A job counts for the command whose job tag it carries ({@link #TAG_PREFIX}: the resident
 * driver tags each command's jobs), else for the JVM.
 */
public final class Work {
  /** The job tag of a command's Spark jobs in the resident driver: this prefix, then the command's scope id. */
  public static final String TAG_PREFIX = "tidemark-command-";
  private static final Map<SparkContext, Boolean> WATCHED = Collections.synchronizedMap(new WeakHashMap<>());

  private Work() {}

  /** Counts the jobs of this session's SparkContext from now on (once per context). */
  static void watch(SparkSession spark) {
    SparkContext sc = spark.sparkContext();
    if (WATCHED.putIfAbsent(sc, Boolean.TRUE) == null) {
      sc.addSparkListener(new SparkListener() {
        @Override
        public void onJobStart(SparkListenerJobStart jobStart) {
          jobs(scopeOf(jobStart.properties())).incrementAndGet();
        }
      });
    }
  }

  /** The counts now; subtract two to get what happened between them. */
  public static Counts now() {
    return new Counts(jobs(CommandScope.current()).get(), NessieCatalog.tableLoads());
  }

  private static AtomicLong jobs(CommandScope scope) {
    return scope.get(Jobs.class, Jobs::new).count;
  }

  /** The command a job ran for: the one named by its tags (Spark's local property of them, comma-separated). */
  static CommandScope scopeOf(java.util.Properties properties) {
    return scopeOfTags(properties == null ? null : properties.getProperty("spark.job.tags"));
  }

  /** The command named by Spark's job tags (comma-separated), or the JVM's. */
  public static CommandScope scopeOfTags(String tags) {
    if (tags != null) {
      for (String tag : tags.split(",")) {
        if (tag.startsWith(TAG_PREFIX)) {
          return CommandScope.byId(tag.substring(TAG_PREFIX.length()));
        }
      }
    }
    return CommandScope.jvm();
  }

  private static final class Jobs {
    final AtomicLong count = new AtomicLong();
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
