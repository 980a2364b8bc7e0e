package io.tidemark.cli;

import io.tidemark.config.ConfigException;
import io.tidemark.config.Durations;
import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.maintain.BranchRetention;
import io.tidemark.maintain.Compaction;
import io.tidemark.maintain.GarbageCollector;
import io.tidemark.maintain.LandingCleanup;
import io.tidemark.maintain.Maintenance;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "maintain", mixinStandardHelpOptions = true,
    description = {"Compact, collect garbage and retire old restatement branches and refused arrivals' tags.",
        "Safe to rerun and to run while the streams commit: compaction on the staging branch "
            + "(TIDEMARK_STAGING_BRANCH, where every writer commits; the next `tidemark publish` takes it to main), "
            + "garbage collection that keeps every file any branch or tag reads, retention of restatement branches and "
            + "of the rejected-* tags of refused arrivals.",
        "Schedule `maintain all --delete` daily (the tidemark_maintenance DAG does)."},
    subcommands = {MaintainCommand.Compact.class, MaintainCommand.Gc.class, MaintainCommand.Branches.class,
        MaintainCommand.Landing.class, MaintainCommand.All.class})
final class MaintainCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Compaction's options; each starts at its value in {@link Compaction.Options#defaults()}. */
  static final class CompactOptions {
    private static final Compaction.Options DEFAULTS = Compaction.Options.defaults();

    @Option(names = "--table", paramLabel = "<ns.table>",
        description = "A table to compact (repeatable; default: every tidemark table).")
    List<String> tables = new ArrayList<>();

    @Option(names = "--target-file-mb", paramLabel = "<mb>",
        description = "Target data file size, in MB (default: ${DEFAULT-VALUE}).")
    long targetMb = DEFAULTS.targetFileBytes() >> 20;

    @Option(names = "--min-input-files", paramLabel = "<n>",
        description = "A partition with fewer small files is left alone (default: "
        + "${DEFAULT-VALUE}).")
    int minInputFiles = DEFAULTS.minInputFiles();

    List<TableName> tables(TidemarkConfig config) {
      if (tables.isEmpty()) {
        return config.pipeline().tables();
      }
      return tables.stream().map(t -> {
        try {
          return TableName.parse(t);
        } catch (IllegalArgumentException e) {
          throw new ConfigException("--table: " + e.getMessage());
        }
      }).toList();
    }

    Compaction.Options options(boolean dryRun) {
      if (targetMb < 1 || minInputFiles < 1) {
        throw new ConfigException("--target-file-mb and --min-input-files must be at least 1");
      }
      return new Compaction.Options(targetMb << 20, minInputFiles, DEFAULTS.attempts(), dryRun);
    }
  }

  static final class GcOptions {
    @Option(names = "--retain", paramLabel = "<duration>", defaultValue = "7 days",
        description = "Commits newer than this stay readable on every branch and tag; every head always does "
            + "(default: ${DEFAULT-VALUE}).")
    String retain;

    @Option(names = "--grace", paramLabel = "<duration>", defaultValue = "6 hours",
        description = "Objects written more recently are never deleted: they may belong to a commit in flight "
            + "(default: ${DEFAULT-VALUE}).")
    String grace;

    @Option(names = "--under", paramLabel = "<path>", defaultValue = "",
        description = "Sweep only this part of the warehouse, e.g. a namespace `facts/` (the mark is always "
            + "every table of every reference; default: the whole warehouse).")
    String under;

    @Option(names = "--delete", description = "Delete the unreachable objects; without it GC is a dry run.")
    boolean delete;

    GarbageCollector.Options options(boolean dryRun) {
      if (under.startsWith("/") || under.contains("..")) {
        throw new ConfigException("--under: a path inside the warehouse, e.g. facts/, not '" + under + "'");
      }
      return new GarbageCollector.Options(duration("--retain", retain), duration("--grace", grace),
          under.isEmpty() || under.endsWith("/") ? under : under + "/", dryRun || !delete);
    }
  }

  static final class BranchOptions {
    @Option(names = "--keep", paramLabel = "<n>", defaultValue = "10",
        description = "Restatement branches always kept, newest first "
        + "(default: ${DEFAULT-VALUE}).")
    int keep;

    @Option(names = "--max-age", paramLabel = "<duration>", defaultValue = "30 days",
        description = "Restatement branches older than this are deleted, tagged or not, and so are rejected-* tags "
            + "on staged commits older than this (default: ${DEFAULT-VALUE}).")
    String maxAge;

    @Option(names = "--ref-prefix", paramLabel = "<prefix>", defaultValue = "",
        description = "The prefix of the restatement's branch and tag names, as given to `restate` (default: none).")
    String refPrefix;

    BranchRetention.Options options(boolean dryRun) {
      if (keep < 0) {
        throw new ConfigException("--keep: must be 0 or more, not " + keep);
      }
      return new BranchRetention.Options(keep, duration("--max-age", maxAge), refPrefix, dryRun);
    }
  }

  static Duration duration(String flag, String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(flag + ": " + e.getMessage() + " (e.g. '7 days', '6 hours')");
    }
  }

  abstract static class Job implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dry-run", paramLabel = "<bool>", arity = "0..1", fallbackValue = "true",
        description = "Print what the job would do; change nothing (also --dry-run=true|false, for schedulers).")
    boolean dryRun;

    @Override
    public Integer call() {
      TidemarkConfig config = Tidemark.root(spec).config();
      validate();
      PrintWriter out = spec.commandLine().getOut();
      try (Lakehouse lh = Lakehouse.open(config.writing(), "tidemark maintain")) {
        run(config, new Maintenance(lh, line -> {
          out.println(line);
          out.flush();
        }));
      }
      return 0;
    }

    abstract void validate();

    abstract void run(TidemarkConfig config, Maintenance m);
  }

  @Command(name = "compact", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Bin-pack small data files (Iceberg's rewrite_data_files) and rewrite the manifests of each "
          + "table on the staging branch (TIDEMARK_STAGING_BRANCH, default ingest), where the streams commit; the "
          + "next `tidemark publish` takes it to main. A commit that races it is retried, no row is lost."})
  static final class Compact extends Job {
    @Mixin
    CompactOptions compact;

    @Override
    void validate() {
      compact.options(dryRun);
    }

    @Override
    void run(TidemarkConfig config, Maintenance m) {
      m.compact(compact.tables(config), compact.options(dryRun));
    }
  }

  @Command(name = "gc", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Garbage collection over every branch and tag (mark and sweep, as Nessie GC): objects of the "
          + "warehouse that no live commit of any reference reads and older than the grace period. A dry run "
          + "unless --delete."})
  static final class Gc extends Job {
    @Mixin
    GcOptions gc;

    @Override
    void validate() {
      gc.options(dryRun);
    }

    @Override
    void run(TidemarkConfig config, Maintenance m) {
      m.gc(gc.options(dryRun));
    }
  }

  @Command(name = "branches", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Delete restate-* branches beyond the newest --keep once published (tagged), and any older "
          + "than --max-age; their restated-* tags stay. Delete the rejected-* tags `tidemark publish` left on "
          + "refused arrivals once older than --max-age; younger ones stay for inspection."})
  static final class Branches extends Job {
    @Mixin
    BranchOptions branches;

    @Override
    void validate() {
      branches.options(dryRun);
    }

    @Override
    void run(TidemarkConfig config, Maintenance m) {
      m.branches(branches.options(dryRun));
      m.rejected(branches.options(dryRun));
    }
  }

  @Command(name = "landing", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Delete (--delete) or archive (--archive PREFIX) landed files that every stream reading them "
          + "has committed (their checkpoints' source and commit logs); a dry run unless one is given. Off by "
          + "default, and not part of `all`: afterwards `tidemark check` can no longer recount the landed lines."})
  static final class Landing extends Job {
    @Option(names = "--delete", description = "Delete the committed landed files.")
    boolean delete;

    @Option(names = "--archive", paramLabel = "<prefix>",
        description = "Move them under this prefix of the landing bucket instead, e.g. archive/ (default: none).")
    String archive;

    @Override
    void validate() {
      if (delete && archive != null) {
        throw new ConfigException("--delete and --archive exclude each other: give --delete to delete the committed "
            + "files, or --archive PREFIX to move them");
      }
      if (archive != null && (archive.isBlank() || archive.startsWith("/") || Tidemark.root(spec).config().pipeline()
          .feeds().stream().anyMatch(d -> archive.startsWith(d.name())))) {
        throw new ConfigException("--archive: a prefix the streams do not read, e.g. archive/, not '" + archive + "'");
      }
    }

    @Override
    void run(TidemarkConfig config, Maintenance m) {
      String prefix = archive == null ? "" : archive.endsWith("/") ? archive : archive + "/";
      m.landing(new LandingCleanup.Options(prefix, dryRun || (!delete && archive == null)));
    }
  }

  @Command(name = "all", mixinStandardHelpOptions = true, sortOptions = false,
      description = {"Compaction on the staging branch, then garbage collection (a dry run unless --delete), then "
          + "retention of restatement branches and rejected-* tags."})
  static final class All extends Job {
    @Mixin
    CompactOptions compact;

    @Mixin
    GcOptions gc;

    @Mixin
    BranchOptions branches;

    @Override
    void validate() {
      compact.options(dryRun);
      gc.options(dryRun);
      branches.options(dryRun);
    }

    @Override
    void run(TidemarkConfig config, Maintenance m) {
      m.compact(compact.tables(config), compact.options(dryRun));
      m.gc(gc.options(dryRun));
      m.branches(branches.options(dryRun));
      m.rejected(branches.options(dryRun));
    }
  }
}
