package io.tidemark.driver;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which commands the resident driver runs: those that work with Spark and the catalog, which a warm session makes
 * fast (the list of {@link #RUNS}). The others run in a JVM of their own as ever: {@code services} (the driver
 * depends on the services it would stop), {@code driver} itself, {@code demo} and {@code bench} (they start JVMs and
 * services of their own, and measure them), {@code config} and {@code help}. So does any command given JVM options
 * ({@code -J...}) or a crash point to halt at ({@code TIDEMARK_TEST_CRASH}: a crash is of a JVM).
 */
public final class Handoff {
  public static final Set<String> RUNS = Set.of("bootstrap", "land", "stream", "publish", "check", "restate",
      "evolve", "maintain", "sql", "report", "log");
  /**
   * A statement of the Nessie SQL extensions: nessie-spark-extensions (0.99) take the catalog's settings for them from
   * the SparkContext's configuration, not the session's, so in the driver a statement that names no reference would
   * work on the driver's branch instead of the command's ({@code --nessie-ref}), and {@code USE REFERENCE} would
   * change that branch for every later command. Such a statement runs in a JVM of its own, where the context is the
   * command's, as before the driver.
   */
  private static final Pattern NESSIE_STATEMENT = Pattern.compile("(?is)\\s*(?:(?:CREATE|DROP|ASSIGN)\\s+(?:BRANCH|TAG)"
      + "|MERGE\\s+BRANCH|SHOW\\s+(?:LOG|REFERENCE)|LIST\\s+REFERENCES|USE\\s+REFERENCE)\\b.*");
  /**
   * The statements among those that name every reference they touch (the one to assign and what to, the one to drop;
   * a list of all): the extensions build their client from the context's catalog settings, which in the driver are
   * the command's services (see {@link Driver#servable}), and never ask for its branch. These the driver runs: the
   * troubleshooting page's undo ({@code ASSIGN BRANCH ingest TO ingest AT <hash> IN nessie}) in a fraction of a
   * second, not a JVM's seconds.
   */
  private static final Pattern NAMES_EVERY_REFERENCE = Pattern.compile("(?is)\\s*(?:ASSIGN\\s+(?:BRANCH|TAG)\\s+"
      + "(?:IF\\s+EXISTS\\s+)?\\S+\\s+TO\\s+\\S+(?:\\s+AT\\s+\\S+)?|DROP\\s+(?:BRANCH|TAG)\\s+(?:IF\\s+EXISTS\\s+)?\\S+"
      + "|LIST\\s+REFERENCES)\\s+IN\\s+\\S+\\s*;?\\s*");
  /** The global options that take no value; every other option before the command's word takes one. */
  private static final Set<String> FLAGS = Set.of("--debug", "-h", "--help", "-V", "--version", "--help-all");

  private Handoff() {}

  /** The command's word ({@code stream} of {@code --home h stream all}), if there is one. */
  public static Optional<String> command(List<String> args) {
    int at = wordAt(args);
    return at < 0 ? Optional.empty() : Optional.of(args.get(at));
  }

  /** Where the command's word is in {@code args}; -1 when there is none. */
  private static int wordAt(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("-")) {
        return i;
      }
      if (!FLAGS.contains(a) && !a.contains("=")) {
        i++;
      }
    }
    return -1;
  }

  /** Whether the driver runs {@code args} asked with {@code env}. */
  public static boolean runs(List<String> args, Map<String, String> env) {
    String crash = env.get("TIDEMARK_TEST_CRASH");
    Optional<String> command = command(args).filter(RUNS::contains);
    return command.isPresent() && (crash == null || crash.isEmpty())
        && !(command.get().equals("sql") && args.stream().anyMatch(a -> NESSIE_STATEMENT.matcher(a).matches()
            && !NAMES_EVERY_REFERENCE.matcher(a).matches()));
  }

  /** Whether {@code args} are {@code driver status} and nothing more (global options before it aside). */
  public static boolean asksStatus(List<String> args) {
    int at = wordAt(args);
    return at >= 0 && at == args.size() - 2 && args.get(at).equals("driver") && args.get(at + 1).equals("status");
  }

  /** The tidemark home of a caller: {@code --home}, else TIDEMARK_HOME, else {@code .tidemark}, from its directory. */
  public static Path home(List<String> args, Map<String, String> env, Path workDir) {
    String home = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--home") && i + 1 < args.size()) {
        home = args.get(i + 1);
      } else if (a.startsWith("--home=")) {
        home = a.substring("--home=".length());
      }
    }
    if (home == null || home.isBlank()) {
      home = env.get("TIDEMARK_HOME");
    }
    if (home == null || home.isBlank()) {
      home = ".tidemark";
    }
    return workDir.resolve(home.trim()).toAbsolutePath().normalize();
  }
}
