package io.tidemark.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Sends the libraries' logs (Spark, Hadoop, Iceberg, the AWS SDK) to {@code <home>/logs/tidemark-<command>.log}, so
 * that the console keeps what tidemark says; a failure names the file. With {@code --debug} they stay on the
 * console. slf4j-simple reads its settings once, when the first logger is made: this runs before that.
 */
final class LogFile {
  private static final String PREFIX = "org.slf4j.simpleLogger.";
  private static Path active;

  private LogFile() {}

  /** The file the logs go to in this run, if any. */
  static Optional<Path> active() {
    return Optional.ofNullable(active);
  }

  static void route(CommandLine cl, String[] args) {
    if (Arrays.asList(args).contains("--debug")) {
      System.setProperty(PREFIX + "defaultLogLevel", "info");
      return;
    }
    Path file;
    try {
      ParseResult pr = cl.parseArgs(args);
      String command = pr.hasSubcommand() ? pr.subcommand().commandSpec().name() : "tidemark";
      file = ((Tidemark) cl.getCommand()).config().home().resolve("logs").resolve("tidemark-" + command + ".log");
      Files.createDirectories(file.getParent());
    } catch (IOException | RuntimeException e) {
      // a bad command line or setting is reported by the command itself; the logs then stay on the console
      return;
    }
    System.setProperty(PREFIX + "logFile", file.toString());
    // the file is where a failed task's trace belongs, which the console settings switch off
    for (String name : new String[] {"org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
        "org.apache.spark.util.Utils", "org.apache.spark.sql.execution.datasources"}) {
      System.setProperty(PREFIX + "log." + name, "warn");
    }
    active = file;
  }
}
