package io.tidemark.cli;

import io.tidemark.pipeline.Feed;
import io.tidemark.core.KeySurvey;
import io.tidemark.core.Type;
import io.tidemark.evolve.Promotion;
import io.tidemark.lakehouse.Lakehouse;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "evolve", mixinStandardHelpOptions = true,
    description = {"Schema drift: the keys the raw archives kept in their rescued data (keys no feed declares, values "
        + "of optional fields that did not convert), and the promotion of one into a column, on the staging branch "
        + "(TIDEMARK_STAGING_BRANCH); the next `tidemark publish` takes it to main with every table it changed.",
        "Run it between stream runs: the streams pick the column up when they next start, with their checkpoints."},
    subcommands = {EvolveCommand.ListKeys.class, EvolveCommand.Promote.class})
final class EvolveCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Each key kept in the rescued data: rows, the arrival it first came in, its values' kinds and the "
          + "type to promote it with (or the type drift of a declared field). Reads only.")
  static final class ListKeys implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config().writing(), "tidemark evolve list")) {
        List<KeySurvey.Finding> keys = new Promotion(lh, Tidemark.root(spec).crashPoints()).list();
        if (keys.isEmpty()) {
          out.println("no rescued data: every key of every archived line is a column");
        }
        keys.forEach(k -> out.println(k.describe()));
      }
      out.flush();
      return 0;
    }
  }

  @Command(name = "promote", mixinStandardHelpOptions = true,
      description = {"Add <key> as a column of the feed's raw archive and of the tables its rows reach (a fact feed: its "
          + "deduplicated records; a dimension feed: its SCD2 change log and dimension, where a change of it makes a "
          + "new version), on a branch of its own; backfill it from the rescued data (the dimension's history rebuilt); "
          + "audit the backfill in DuckDB; merge into the staging branch in one commit. Safe to kill and to rerun: a "
          + "promoted key is not promoted again."})
  static final class Promote implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<feed>", description = "A feed of the pipeline (tidemark pipeline show).")
    String feed;

    @Parameters(index = "1", paramLabel = "<key>", description = "The key, as `tidemark evolve list` names it.")
    String key;

    @Option(names = "--type", paramLabel = "<type>",
        description = "The column's type, as the pipeline file names types (int, long, double, decimal(p,s), string, "
            + "boolean, date, timestamp) or as SQL does (BIGINT) (default: the suggested type).")
    String type;

    @Override
    public Integer call() {
      Feed f;
      try {
        f = Tidemark.root(spec).config().pipeline().feed(feed);
      } catch (IllegalArgumentException e) {
        throw new io.tidemark.config.ConfigException(e.getMessage());
      }
      Type as = type == null ? null : type(type);
      PrintWriter out = spec.commandLine().getOut();
      try (Lakehouse lh = Lakehouse.open(Tidemark.root(spec).config().writing(), "tidemark evolve promote")) {
        Promotion.Result r = new Promotion(lh, Tidemark.root(spec).crashPoints()).promote(f, key, as);
        r.checks().forEach(c -> out.println("  " + c));
        out.println(r.summary());
      }
      out.flush();
      return 0;
    }

    private static Type type(String text) {
      if (text.trim().equalsIgnoreCase("bigint")) {
        return Type.BIGINT;
      }
      try {
        return Type.parse(text);
      } catch (IllegalArgumentException e) {
        throw new io.tidemark.config.ConfigException("--type: " + e.getMessage());
      }
    }
  }
}
