package io.tidemark.publish;

import io.tidemark.Timings;
import io.tidemark.config.TableName;
import io.tidemark.pipeline.Pipeline;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.lakehouse.tables.DriverReads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;

/**
 * What the checks of one publish share: the configuration and the landing zone, the threads their reads run on (the
 * runner's, {@link ArrivalChecks}), and where their steps' times go. Each check mostly waits on object storage, so
 * the reads within a check run at once too.
 */
final class CheckReads {
  /** Rows a check reads on the driver at most: far above an arrival's. */
  static final long BUDGET = 20_000_000;

  private final TidemarkConfig config;
  private final Storage storage;
  private final ExecutorService reads;
  private final ExecutorService files;
  private final Timings timings;

  /**
   * {@code reads}: the threads a check's reads run on; {@code files}: those that plan a read and read its files
   * ({@link DriverReads#readAtOnce}), never waiting on each other, while {@code reads} wait on them.
   */
  CheckReads(TidemarkConfig config, Storage storage, ExecutorService reads, ExecutorService files, Timings timings) {
    this.config = config;
    this.storage = storage;
    this.reads = reads;
    this.files = files;
    this.timings = timings;
  }

  TidemarkConfig config() {
    return config;
  }

  Pipeline pipeline() {
    return config.pipeline();
  }

  Storage storage() {
    return storage;
  }

  /** The threads for {@link DriverReads#readAtOnce}. */
  ExecutorService files() {
    return files;
  }

  Timings timings() {
    return timings;
  }

  /** Runs a read on the reads' threads. */
  <T> CompletableFuture<T> async(Supplier<T> task) {
    return CompletableFuture.supplyAsync(task, reads);
  }

  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  /**
   * The rows the staged appends added to a table (none when it did not change): snapshot by snapshot, as the
   * restatement's overwrites (audited by the restatement itself) and compaction's rewrites add no new rows.
   */
  static List<Record> appended(Staged staged, TableName table, List<String> columns) {
    return appended(staged, table, columns, s -> true);
  }

  /** The same, of the staged appends {@code made} picks. */
  static List<Record> appended(Staged staged, TableName table, List<String> columns,
                               Predicate<Snapshot> made) {
    Staged.Change c = staged.changes().get(table);
    if (c == null) {
      return List.of();
    }
    List<Record> out = new ArrayList<>();
    for (Snapshot s : c.snapshots()) {
      if (!DataOperations.APPEND.equals(s.operation()) || !made.test(s)) {
        continue;
      }
      out.addAll(s.parentId() == null
          ? DriverReads.read(c.table(), s.snapshotId(), Expressions.alwaysTrue(), columns, false, BUDGET)
          : DriverReads.appended(c.table(), s.parentId(), s.snapshotId(), Expressions.alwaysTrue(), columns, BUDGET));
    }
    return out;
  }

  /** The manifests a plan of the table's current snapshot opens (printed by the benchmark, next to the files). */
  static int manifests(Table table) {
    return table.currentSnapshot() == null ? 0 : table.currentSnapshot().allManifests(table.io()).size();
  }

  /** The first problem, and how many more. */
  static String first(List<String> problems) {
    return problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : "");
  }
}
