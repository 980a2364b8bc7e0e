package io.tidemark.cli;

import java.nio.file.Path;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.FileAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * The run's log file next to the appenders log4j 2 was given (spark-submit: the task's log), at the levels those
 * settings give: the logs go to both, so that the file named by a failure's line holds what the task's log shows.
 * Only loaded when log4j 2 is the binding: {@code java -jar} runs have slf4j-simple and no use for it.
 */
final class Log4jFile {
  private Log4jFile() {}

  /** Adds the file to the root logger; whether it could (another log4j implementation: no). */
  static boolean attach(Path file) {
    if (!(LogManager.getContext(false) instanceof LoggerContext ctx)) {
      return false;
    }
    Configuration config = ctx.getConfiguration();
    PatternLayout layout = PatternLayout.newBuilder().withConfiguration(config)
        .withPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} [%t] %p %c - %m%n").build();
    FileAppender appender = FileAppender.newBuilder().setName("tidemark-run-log").withFileName(file.toString())
        .setLayout(layout).setConfiguration(config).build();
    appender.start();
    config.addAppender(appender);
    config.getRootLogger().addAppender(appender, null, null);
    ctx.updateLoggers();
    return true;
  }
}
