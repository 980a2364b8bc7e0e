package io.tidemark.maintain;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.pipeline.Feed;
import io.tidemark.fence.OffsetLog;
import io.tidemark.fence.SourceFileLog;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.stream.StreamSpec;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * Removes landed files that every stream reading them has committed, with the guarantee of Spark's
 * {@code cleanSource} but across all the queries that share the landing zone (cleanSource knows one query only):
 * a file goes when it is in the source log of a committed batch of the raw archive AND of every other stream of
 * its feed (a fact feed's dedup and aggregates, a dimension's SCD2 stream). Deleted, or archived under a prefix the streams do not
 * read. Off unless asked: afterwards `tidemark check` can no longer recount the landed lines.
 */
public final class LandingCleanup {
  /** {@code archivePrefix} empty: delete; else copy there first. */
  public record Options(String archivePrefix, boolean dryRun) {}

  public record Result(int landed, int removable, int removed) {}

  private final SparkSession spark;
  private final TidemarkConfig config;
  private final Storage storage;

  public LandingCleanup(SparkSession spark, TidemarkConfig config, Storage storage) {
    this.spark = spark;
    this.config = config;
    this.storage = storage;
  }

  public Result run(Options options, Consumer<String> out) {
    String bucket = config.landingBucket();
    int landed = 0;
    int removable = 0;
    int removed = 0;
    for (Feed feed : config.pipeline().feeds()) {
      List<StreamSpec> readers = StreamSpec.all(config).stream()
          .filter(s -> s.def().feed().name().equals(feed.name())).toList();
      Set<String> committedByAll = null;
      for (StreamSpec s : readers) {
        Set<String> committed = committedFiles(s.checkpoint());
        if (committedByAll == null) {
          committedByAll = committed;
        } else {
          committedByAll.retainAll(committed);
        }
      }
      String prefix = feed.name() + "/";
      List<Storage.ObjectInfo> objects = storage.list(bucket, prefix);
      List<String> go = new ArrayList<>();
      for (Storage.ObjectInfo o : objects) {
        if (committedByAll != null && committedByAll.contains(bucket + "/" + o.key())) {
          go.add(o.key());
        }
      }
      landed += objects.size();
      removable += go.size();
      out.accept("landing s3://" + bucket + "/" + prefix + ": " + objects.size() + " files, " + go.size()
          + " committed by every stream that reads them (" + String.join(", ", readers.stream()
          .map(StreamSpec::name).toList()) + ")");
      for (String key : go) {
        if (options.dryRun()) {
          out.accept("  would " + (options.archivePrefix().isEmpty() ? "delete " : "archive ") + key);
          continue;
        }
        if (!options.archivePrefix().isEmpty()) {
          storage.copy(bucket, key, options.archivePrefix() + key);
        }
        storage.remove(bucket, key);
        removed++;
      }
    }
    if (!options.dryRun()) {
      out.accept((options.archivePrefix().isEmpty() ? "deleted " : "archived under " + options.archivePrefix()
          + ": ") + removed + " landed files");
    }
    return new Result(landed, removable, removed);
  }

  /** The files ({@code bucket/key}) of every batch the checkpoint's commit log holds; empty without one. */
  private Set<String> committedFiles(String checkpoint) {
    Set<String> files = new HashSet<>();
    long last = OffsetLog.lastCommitted(spark, checkpoint);
    if (last < 0) {
      return files;
    }
    // the source log counts its own offsets (a batch without new files adds none): read the committed batch's
    long logOffset = OffsetLog.sourceLogOffset(spark, checkpoint, last);
    if (logOffset < 0) {
      return files;
    }
    for (String path : SourceFileLog.files(spark, checkpoint, 0, logOffset)) {
      URI uri = URI.create(path);
      files.add(uri.getAuthority() + uri.getPath());
    }
    return files;
  }
}
