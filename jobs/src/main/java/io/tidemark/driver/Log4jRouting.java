package io.tidemark.driver;

import java.io.IOException;
import java.io.Serializable;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Under spark-submit (the driver of docker compose) log4j 2 is the binding: an appender of the root logger writes each
 * event a command's thread logs to that command's file, beside the appenders the driver's settings give (its
 * console, the container's log). Loaded only then: {@code java -jar} has slf4j-simple.
 */
final class Log4jRouting extends AbstractAppender {
  private Log4jRouting(Layout<? extends Serializable> layout) {
    super("tidemark-command-logs", null, layout, true, Property.EMPTY_ARRAY);
  }

  static void attach() {
    if (!(LogManager.getContext(false) instanceof LoggerContext ctx)) {
      return;
    }
    Configuration config = ctx.getConfiguration();
    PatternLayout layout = PatternLayout.newBuilder().withConfiguration(config)
        .withPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} [%t] %p %c - %m%n").build();
    Log4jRouting appender = new Log4jRouting(layout);
    appender.start();
    config.addAppender(appender);
    config.getRootLogger().addAppender(appender, null, null);
    ctx.updateLoggers();
  }

  @Override
  public void append(LogEvent event) {
    CommandLogging.Sink sink = CommandLogging.current();
    if (sink == null) {
      return;
    }
    try {
      sink.log().write(getLayout().toByteArray(event));
      sink.log().flush();
    } catch (IOException e) {
      // the command ended as it logged: its line is in the driver's console log all the same
    }
  }
}
