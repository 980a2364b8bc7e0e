package io.tidemark.publish;

import io.tidemark.Timings;
import io.tidemark.audit.AuditCheck;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.storage.Storage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The checks an arrival passes before it is published, run at once by this runner, which owns the threads they run on:
 * <ul>
 *   <li>{@value #WRITERS} ({@link StagedWriters}): every staged snapshot was made by a stream, the restatement or
 *       compaction, and a stream's snapshot of an append-only table only appends;</li>
 *   <li>{@value #LINES} ({@link LinesAccounted}): every line of each landed file the raw archives read is archived or
 *       quarantined;</li>
 *   <li>{@value #SCD2} ({@link Scd2OfChangedKeys}): the SCD2 invariants on the keys the arrival changed, in every dimension;</li>
 *   <li>{@value #WINDOWS} ({@link WindowsFinal}): the windows the arrival finalized are final under the counts stream's
 *       watermark, each written once, and count no more events than the raw archive holds in them;</li>
 *   <li>{@value #SAME_ARRIVALS} ({@link SameArrivals}): the streams fed by one feed have all taken in the same
 *       arrivals;</li>
 *   <li>{@value #EXPECTATIONS} ({@link ExpectationsMet}): no arrival failed a {@code fail} expectation of the version
 *       that judged it, unless a later arrival corrected it.</li>
 * </ul>
 * The checks read different tables and files, and each mostly waits on object storage: they run at once, and so do
 * the reads within a check. Each check's time, and its steps', go to the {@link Timings} it is given.
 */
public final class ArrivalChecks implements AutoCloseable {
  public static final String WRITERS = StagedWriters.NAME;
  public static final String LINES = LinesAccounted.NAME;
  public static final String SCD2 = Scd2OfChangedKeys.NAME;
  public static final String WINDOWS = WindowsFinal.NAME;
  public static final String SAME_ARRIVALS = SameArrivals.NAME;
  public static final String EXPECTATIONS = ExpectationsMet.NAME;

  /** Every check, in the order the publish commit lists them. */
  static final List<ArrivalCheck> ALL = List.of(new StagedWriters(), new LinesAccounted(),
      new Scd2OfChangedKeys(), new WindowsFinal(), new SameArrivals(), new ExpectationsMet());

  private final TidemarkConfig config;
  private final Storage storage;
  private final ExecutorService checks = Executors.newFixedThreadPool(4, daemons("tidemark-check"));
  private final ExecutorService reads = Executors.newFixedThreadPool(8, daemons("tidemark-check-read"));
  private final ExecutorService files = Executors.newFixedThreadPool(8, daemons("tidemark-check-file"));

  public ArrivalChecks(TidemarkConfig config, Storage storage) {
    this.config = config;
    this.storage = storage;
  }

  /** Every check on what is staged, in order; each passes when what it looks at was not staged. */
  public List<AuditCheck> run(Staged staged) {
    return run(staged, Timings.NONE);
  }

  /** The same, putting each check's time under its name, then its steps', into {@code timings}. */
  public List<AuditCheck> run(Staged staged, Timings timings) {
    Timings.Recorder steps = new Timings.Recorder();
    CheckReads context = new CheckReads(config, storage, reads, files, steps);
    Map<String, Long> took = new java.util.concurrent.ConcurrentHashMap<>();
    List<CompletableFuture<AuditCheck>> running = ALL.stream().map(check -> CompletableFuture.supplyAsync(
        () -> {
          long t0 = System.nanoTime();
          AuditCheck c = check.run(staged, context);
          took.put(check.name(), (System.nanoTime() - t0) / 1_000_000);
          return c;
        }, checks)).toList();
    List<AuditCheck> out = running.stream().map(CheckReads::join).toList();
    Map<String, Long> all = new LinkedHashMap<>();
    ALL.forEach(c -> all.put(c.name(), took.get(c.name())));
    steps.values().forEach(all::putIfAbsent);
    all.forEach(timings::put);
    return out;
  }

  @Override
  public void close() {
    checks.shutdown();
    reads.shutdown();
    files.shutdown();
  }

  private static ThreadFactory daemons(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
