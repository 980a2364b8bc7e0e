package io.tidemark.maintain;

import io.tidemark.TidemarkException;
import io.tidemark.config.Durations;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.services.Endpoints;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

/**
 * Reference-aware garbage collection of the warehouse, mark and sweep as Nessie GC does it (its library is not
 * served by our Maven registry): mark every file that any live commit of any branch or tag needs
 * ({@link LiveContents}, {@link ReachableFiles}), then delete the warehouse objects that are not marked and were
 * written before the mark started minus a grace period (files of a commit in flight are young). Iceberg's
 * expire_snapshots would only see the branch it runs on and delete what other branches and tags still read.
 */
public final class GarbageCollector {
  /**
   * {@code retain}: commits newer than this stay readable (heads always do); {@code grace}: objects younger are never
   * deleted; {@code under}: sweep only this part of the warehouse (e.g. a namespace), the mark is always global.
   */
  public record Options(Duration retain, Duration grace, String under, boolean dryRun) {}

  /** What the sweep found (and, unless a dry run, deleted). */
  public record Result(int references, int commits, int tableVersions, int liveFiles, int objects, long bytes,
                       int unreachable, long unreachableBytes, int tooYoung, int deleted, long deletedBytes,
                       List<String> sample) {}

  private final TidemarkConfig config;
  private final Endpoints endpoints;
  private final Storage storage;

  public GarbageCollector(TidemarkConfig config, Endpoints endpoints, Storage storage) {
    this.config = config;
    this.endpoints = endpoints;
    this.storage = storage;
  }

  public Result run(Options options, Consumer<String> out) {
    Instant start = Instant.now();
    Instant cutoff = start.minus(options.retain());
    Instant youngest = start.minus(options.grace());
    String[] warehouse = bucketAndPrefix(config.warehouse());
    String bucket = warehouse[0];
    String prefix = warehouse[1] + options.under();
    LiveContents.Found found;
    ReachableFiles reachable;
    List<String> broken = new ArrayList<>();
    try (NessieRefs refs = new NessieRefs(endpoints); FileIO io = fileIo()) {
      found = new LiveContents(refs).collect(cutoff, out);
      reachable = new ReachableFiles(io);
      for (LiveContents.TableVersion v : found.tables()) {
        try {
          reachable.add(v);
        } catch (org.apache.iceberg.exceptions.NotFoundException e) {
          // already unreadable (an earlier GC with a shorter --retain, or a file lost): nothing of it can be read,
          // so nothing readable depends on the files only it names; what it shares with a readable version is
          // marked by that version
          broken.add(v.metadataLocation() + " snapshot " + v.snapshotId());
        } catch (MaintenanceException e) {
          throw e;
        } catch (RuntimeException e) {
          throw new MaintenanceException("gc: cannot read the files of " + v.metadataLocation() + " snapshot "
              + v.snapshotId() + " (" + TidemarkException.firstLine(e) + "); refusing to sweep", e);
        }
      }
      found.viewMetadata().forEach(reachable::addView);
    }
    out.accept("mark: " + found.references().size() + " references, " + found.commits() + " commits, "
        + found.tables().size() + " live table versions, " + reachable.manifestsRead() + " manifests read, "
        + reachable.files().size() + " live files (commits since " + cutoff + " and every head)");

    if (!broken.isEmpty()) {
      out.accept("mark: " + broken.size() + " table versions of live commits cannot be read any more (a file is "
          + "gone, e.g. deleted by an earlier GC with a shorter --retain); skipped, first: " + broken.get(0));
    }
    String checkpoints = ReachableFiles.key(config.checkpointRoot().replaceFirst("/*$", "/"));
    List<Storage.ObjectInfo> objects = storage.list(bucket, prefix);
    long bytes = 0;
    long unreachableBytes = 0;
    int unreachable = 0;
    int young = 0;
    List<Storage.ObjectInfo> doomed = new ArrayList<>();
    for (Storage.ObjectInfo o : objects) {
      bytes += o.size();
      String key = bucket + "/" + o.key();
      if (reachable.files().contains(key) || key.startsWith(checkpoints)) {
        continue;
      }
      unreachable++;
      unreachableBytes += o.size();
      if (!o.lastModified().isBefore(youngest)) {
        young++;  // may belong to a commit in flight
        continue;
      }
      doomed.add(o);
    }
    List<String> sample = doomed.stream().limit(10).map(o -> "s3://" + bucket + "/" + o.key()).toList();
    long doomedBytes = doomed.stream().mapToLong(Storage.ObjectInfo::size).sum();
    out.accept("sweep s3://" + bucket + "/" + prefix + ": " + objects.size() + " objects, " + mib(bytes) + "; "
        + unreachable + " unreachable (" + mib(unreachableBytes) + "), of which " + young + " younger than the "
        + Durations.show(options.grace()) + " grace period are kept");
    int deleted = 0;
    long deletedBytes = 0;
    if (options.dryRun()) {
      out.accept("dry run: would delete " + doomed.size() + " objects (" + mib(doomedBytes) + ")");
      sample.forEach(s -> out.accept("  would delete " + s));
    } else {
      for (Storage.ObjectInfo o : doomed) {
        storage.remove(bucket, o.key());
        deleted++;
        deletedBytes += o.size();
      }
      out.accept("deleted " + deleted + " objects (" + mib(deletedBytes) + "); " + (objects.size() - deleted)
          + " objects (" + mib(bytes - deletedBytes) + ") remain");
    }
    return new Result(found.references().size(), found.commits(), found.tables().size(), reachable.files().size(),
        objects.size(), bytes, unreachable, unreachableBytes, young, deleted, deletedBytes, sample);
  }

  private FileIO fileIo() {
    String cat = "spark.sql.catalog." + SparkSessions.CATALOG + ".";
    Map<String, String> props = new HashMap<>();
    SparkSessions.conf(config, endpoints).forEach((k, v) -> {
      if (k.startsWith(cat)) {
        props.put(k.substring(cat.length()), v);
      }
    });
    return CatalogUtil.loadFileIO(props.get("io-impl"), props, null);
  }

  /** {@code s3://bucket/some/prefix} as the bucket and {@code some/prefix/}. */
  static String[] bucketAndPrefix(String location) {
    String rest = ReachableFiles.key(location);
    int slash = rest.indexOf('/');
    if (slash < 0) {
      return new String[] {rest, ""};
    }
    String prefix = rest.substring(slash + 1);
    return new String[] {rest.substring(0, slash), prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/"};
  }

  static String mib(long bytes) {
    return String.format(java.util.Locale.ROOT, "%.2f MiB", bytes / 1048576.0);
  }
}
