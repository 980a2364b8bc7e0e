package io.tidemark.cli;

import io.tidemark.CommandScope;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Sends the libraries' logs (Spark, Hadoop, Iceberg, the AWS SDK) to a file of this run's own,
 * {@code <home>/logs/tidemark-<command>-<yyyyMMdd-HHmmss.SSS>-<pid>.log}, so that the console keeps what tidemark
 * says and a failure's trace outlives the commands after it; a failure names the file. Of each command the newest
 * {@link #KEPT} files are kept. With {@code --debug} the logs stay on the console.
 *
 * <p>Run as {@code java -jar} (the launcher), slf4j-simple writes them: it reads its settings once, when the first
 * logger is made, and this runs before that. Under spark-submit (the DAGs' tasks) Spark's log4j 2 is the binding,
 * set up by whoever submitted the job (the task's log): the file is added next to its appenders
 * ({@link Log4jFile}), so the task's log shows the failure and the line naming the file.
 */
final class LogFile {
  /** The logs of a command's runs that are kept: the newest, by the time in their names. */
  static final int KEPT = 20;
  private static final String PREFIX = "org.slf4j.simpleLogger.";
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss.SSS");

  private LogFile() {}

  /** The file the logs of this command go to, if any (the command's scope keeps it: the resident driver runs many). */
  static Optional<Path> active() {
    return CommandScope.current().logFile();
  }

  static void route(CommandLine cl, String[] args) {
    if (Arrays.asList(args).contains("--debug")) {
      System.setProperty(PREFIX + "defaultLogLevel", "info");
      return;
    }
    Optional<Path> file = fileFor(cl, args, ProcessHandle.current().pid());
    if (file.isEmpty()) {
      return;
    }
    if (simpleLogging()) {
      System.setProperty(PREFIX + "logFile", file.get().toString());
      warnLevels();
    } else if (!attachToLog4j(file.get())) {
      return;
    }
    CommandScope.jvm().logFile(file.get());
  }

  /**
   * The file of a run of the command {@code args} by the process {@code pid}, in its home's logs, the command's older
   * files pruned; none when the command line or a setting is bad (the command itself reports it, and its logs then
   * stay on the console).
   */
  static Optional<Path> fileFor(CommandLine cl, String[] args, long pid) {
    try {
      ParseResult pr = cl.parseArgs(args);
      // the home alone: reading the whole configuration reads the pipeline file, whose conditions Spark's parser
      // checks, which would start the libraries' logging on the console before its file is set below
      Path dir = Files.createDirectories(((Tidemark) cl.getCommand()).home().resolve("logs"));
      String command = command(pr);
      Path file = dir.resolve(name(command, LocalDateTime.now(), pid));
      prune(dir, command, KEPT - 1);
      return Optional.of(file);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** slf4j-simple's levels of the libraries whose warnings belong in the file: a failed task's trace. */
  static void warnLevels() {
    // the file is where a failed task's trace belongs, which the console settings switch off
    for (String name : new String[] {"org.apache.spark.executor.Executor",
        "org.apache.spark.scheduler.TaskSetManager", "org.apache.spark.util.Utils",
        "org.apache.spark.sql.execution.datasources"}) {
      System.setProperty(PREFIX + "log." + name, "warn");
    }
  }

  /** The command's words as a file name: {@code stream-all}, {@code maintain-compact}, {@code tidemark} alone. */
  static String command(ParseResult pr) {
    List<String> words = words(pr);
    return words.isEmpty() ? "tidemark" : String.join("-", words);
  }

  /** The command's words after {@code tidemark}: its subcommands' names and the stream a stream command runs. */
  static List<String> words(ParseResult pr) {
    List<String> words = new ArrayList<>();
    for (ParseResult p = pr.subcommand(); p != null; p = p.subcommand()) {
      String name = p.commandSpec().name();
      if (!"help".equals(name)) {
        words.add(name);
      }
      // a stream's name is a word of its command: each stream's runs are kept (and pruned) apart
      if (p.commandSpec().userObject() instanceof StreamCommand && p.hasMatchedPositional(0)) {
        words.add(p.matchedPositional(0).getValue().toString().replaceAll("[^A-Za-z0-9_.-]", "_"));
      }
    }
    return words;
  }

  /** A run's file: the command, then the time it started (a command's names sort as its runs started), its pid. */
  static String name(String command, LocalDateTime started, long pid) {
    return "tidemark-" + command + "-" + TIME.format(started) + "-" + pid + ".log";
  }

  /**
   * Deletes the command's files in {@code dir} but the newest {@code keep}; what it deleted. Only this command's:
   * a time follows its name, so {@code stream}'s are not {@code stream-all}'s. Two runs pruning at once at worst
   * both delete a file.
   */
  static List<Path> prune(Path dir, String command, int keep) throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, "tidemark-" + command + "-[0-9]*.log")) {
      found.forEach(files::add);
    }
    files.sort(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed());
    List<Path> deleted = new ArrayList<>();
    for (Path old : files.subList(Math.min(keep, files.size()), files.size())) {
      if (Files.deleteIfExists(old)) {
        deleted.add(old);
      }
    }
    return deleted;
  }

  private static boolean attachToLog4j(Path file) {
    try {
      return Log4jFile.attach(file);
    } catch (LinkageError | RuntimeException e) {
      // no log4j 2 core either: the logs go where the binding sends them, and a failure's line names no file
      return false;
    }
  }

  /** Whether slf4j-simple is the binding (java -jar), else Spark's log4j 2 is (spark-submit). */
  static boolean simpleLogging() {
    try {
      Class.forName("org.slf4j.simple.SimpleLogger", false, LogFile.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
