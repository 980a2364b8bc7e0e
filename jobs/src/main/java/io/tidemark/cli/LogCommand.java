package io.tidemark.cli;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.Lakehouse;
import io.tidemark.lakehouse.nessie.NessieRefException;
import io.tidemark.lakehouse.nessie.NessieRefs;
import java.io.PrintWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import org.projectnessie.model.CommitMeta;
import org.projectnessie.model.LogResponse.LogEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * A reference's commits one a line, as {@code git log --oneline} shows them: what a person needs to undo one (its
 * hash's beginning, which {@code tidemark sql} takes) without the 700-character rows of {@code SHOW LOG}.
 */
@Command(name = "log", mixinStandardHelpOptions = true,
    description = {"A branch's or tag's commits, newest first, one a line: hash, time (UTC), author, message.",
        "The hash is shown by its first " + LogCommand.SHORT + " digits, which `tidemark sql` takes wherever it "
            + "takes a hash (`ASSIGN BRANCH ingest TO ingest AT <hash> IN nessie`, `ns.table@ingest#<hash>`); "
            + "--full-hashes shows them whole. No Spark: it answers in a second."})
final class LogCommand implements Callable<Integer> {
  /** Digits of a hash shown: unique in any history tidemark keeps, and what `tidemark sql` expands. */
  static final int SHORT = 12;
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  @Spec
  CommandSpec spec;

  @Parameters(paramLabel = "<ref>", arity = "0..1",
      description = "The branch or tag (default: TIDEMARK_NESSIE_REF, the published branch).")
  String ref;

  @Option(names = "--max-commits", paramLabel = "<n>", defaultValue = "30",
      description = "Show at most this many commits (default: ${DEFAULT-VALUE}).")
  int maxCommits;

  @Option(names = "--full-hashes", description = "Show every hash whole (64 digits).")
  boolean fullHashes;

  @Override
  public Integer call() {
    if (maxCommits < 1) {
      throw new IllegalArgumentException("--max-commits: expected a positive number, got " + maxCommits);
    }
    TidemarkConfig config = Tidemark.root(spec).config();
    String name = ref == null ? config.publishedRef() : ref;
    PrintWriter out = spec.commandLine().getOut();
    try (Lakehouse lh = Lakehouse.open(config, "tidemark log"); NessieRefs refs = new NessieRefs(lh.endpoints())) {
      if (!refs.exists(name)) {
        throw new NessieRefException("no branch or tag " + name + " in Nessie (the Nessie UI at "
            + lh.endpoints().nessieUi() + " lists them)");
      }
      List<LogEntry> entries = refs.log(name).limit(maxCommits).toList();
      entries.forEach(e -> out.println(line(e.getCommitMeta(), fullHashes)));
      if (entries.isEmpty()) {
        out.println(name + " has no commit");
      }
    }
    out.flush();
    return 0;
  }

  /** {@code 08ffc775d2a1  2026-01-01 00:00:00  tidemark-stream/dedup  dedup batch 2 (arrival 2): append ...}. */
  static String line(CommitMeta meta, boolean fullHash) {
    String hash = fullHash ? meta.getHash() : meta.getHash().substring(0, Math.min(SHORT, meta.getHash().length()));
    String author = meta.getAuthor() == null ? "" : meta.getAuthor();
    // the run context the DAGs add ("[dag=... run=... task=...]") is in the commit's properties too
    int bracket = author.indexOf(" [");
    String message = meta.getMessage() == null ? "" : meta.getMessage().lines().findFirst().orElse("");
    return hash + "  " + (meta.getCommitTime() == null ? "-" : TIME.format(meta.getCommitTime())) + "  "
        + (bracket < 0 ? author : author.substring(0, bracket)) + "  " + message;
  }
}
