package io.tidemark.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Runs independent availableNow runs at the same time in one SparkSession. Runs in different lanes run at once,
 * each lane in its own scheduler pool (the session runs the FAIR scheduler: one lane's jobs do not queue behind
 * another's); runs in one lane run one after the other. A small arrival
 * spends most of a run's time waiting on round trips (catalog, object store, checkpoint files), so runs overlap
 * well even on two cores. Each run is exactly-once on its own; a failing run stops none of the others, and every
 * run ends (committed, or failed) before their failures are thrown, each once ({@link #reportsOf}).
 */
public final class ConcurrentRuns {
  /** The local property that puts a thread's Spark jobs into a scheduler pool; streaming threads inherit it. */
  static final String POOL = "spark.scheduler.pool";

  /** One run: its lane (and pool) and what it does. */
  public record Run(String lane, Supplier<RunReport> body) {}

  private ConcurrentRuns() {}

  /** What a run ended with: its report, or the failure (a RuntimeException or an Error) that ended it. */
  public record Outcome(RunReport report, Throwable failure) {}

  /** Runs each lane in its own thread; what each run ended with, in the given order of the runs. */
  public static List<Outcome> run(SparkSession spark, List<Run> runs) {
    Map<String, List<Integer>> lanes = new LinkedHashMap<>();
    for (int i = 0; i < runs.size(); i++) {
      lanes.computeIfAbsent(runs.get(i).lane(), k -> new ArrayList<>()).add(i);
    }
    Object[] outcomes = new Object[runs.size()];
    SparkContext sc = spark.sparkContext();
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, lanes.size()), r -> {
      Thread t = new Thread(r, "tidemark-run");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> futures = new ArrayList<>();
      lanes.forEach((lane, indexes) -> futures.add(threads.submit(() -> {
        sc.setLocalProperty(POOL, lane);
        try {
          for (int i : indexes) {
            try {
              outcomes[i] = runs.get(i).body().get();
            } catch (RuntimeException | Error e) {
              outcomes[i] = e;
            }
          }
        } finally {
          sc.setLocalProperty(POOL, null);
        }
      })));
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StreamException("interrupted while the streams ran", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a lane of runs failed outside its runs", e.getCause());
    } finally {
      threads.shutdown();
    }
    List<Outcome> out = new ArrayList<>();
    for (Object o : outcomes) {
      out.add(o instanceof RunReport r ? new Outcome(r, null) : new Outcome(null, (Throwable) o));
    }
    return out;
  }

  /**
   * The reports of the runs; or, when runs failed, their failures and {@code more} (the record's of their batches,
   * null when it did not fail), each once, in the given order ({@link StreamsFailed#throwIfAny}).
   */
  public static List<RunReport> reportsOf(List<Outcome> outcomes, Throwable... more) {
    List<RunReport> reports = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (Outcome o : outcomes) {
      if (o.report() != null) {
        reports.add(o.report());
      } else {
        failures.add(o.failure());
      }
    }
    failures.addAll(java.util.Arrays.asList(more));
    StreamsFailed.throwIfAny(failures);
    return reports;
  }
}
