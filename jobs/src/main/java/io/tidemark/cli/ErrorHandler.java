package io.tidemark.cli;

import static io.tidemark.TidemarkException.firstLine;

import io.tidemark.Finding;
import io.tidemark.TidemarkException;
import io.tidemark.config.ConfigException;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Outage;
import io.tidemark.services.ServiceException;
import io.tidemark.services.TransientFault;
import io.tidemark.stream.StreamsFailed;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns any failure into one line on stderr and an exit code: 2 for a bad setting, 3 for a service that cannot
 * be reached or started (also when it goes away mid-run), 1 for anything else. {@code --debug} adds the stack
 * trace; otherwise the trace goes to the log file, which the line names when the failure is not one of ours.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
  static final int FAILED = 1;
  static final int BAD_CONFIG = 2;
  static final int SERVICE_DOWN = 3;

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, ParseResult parseResult) {
    PrintWriter err = cl.getErr();
    Tidemark root = Tidemark.root(cl.getCommandSpec());
    // a finding is what the data says, with its next step: where in the code it was found says nothing more
    boolean trace = !(e instanceof Finding);
    if (trace && !root.debug() && LogFile.active().isPresent()) {
      // before the lines: under spark-submit the log shares the console (the task's log), whose last lines they are
      // named as its log file is (tidemark stream all, tidemark stream dedup: the stream is a word of the command)
      LoggerFactory.getLogger(Tidemark.class).error(String.join(" ", Stream.concat(Stream.of("tidemark"),
          LogFile.words(parseResult).stream()).toList()) + " failed", e);
    }
    Optional<String> outage = outage(e, root);
    // a service's fault that outlasted the retries (a connection closed again and again): the service's, not the work's
    boolean fault = outage.isEmpty() && !(e instanceof Finding) && exitCode(e) == FAILED && TransientFault.is(e);
    String first = outage.map(o -> describe(e, o)).orElseGet(() -> describe(e)
        + (fault ? " (a transient fault of a service, through " + TransientFault.ATTEMPTS + " attempts; run the "
            + "command again)" : ""));
    err.println("tidemark: " + first);
    // also at the end of the run's log: when the console's output goes nowhere (a full disk: the JVM's streams swallow
    // the error of a write), the log still says why the command failed
    LogFile.active().ifPresent(f -> LoggerFactory.getLogger(Tidemark.class).error("tidemark: " + first));
    if (e instanceof StreamsFailed several) {
      // the others after the first, a line each; a service out of reach, or one cause the runs shared (a setting
      // every stream's catalog reads), is named once
      java.util.Set<String> said = new java.util.HashSet<>(java.util.List.of(first, describe(e)));
      for (Throwable other : several.failures().subList(1, several.failures().size())) {
        String line = describe(other);
        if ((outage.isEmpty() || outage(other, root).isEmpty()) && said.add(line)) {
          err.println("tidemark: also " + line);
        }
      }
    }
    if (trace && root.debug()) {
      e.printStackTrace(err);
    }
    err.flush();
    return outage.isPresent() || fault ? SERVICE_DOWN : exitCode(e);
  }

  /**
   * What escapes a command as an {@link Error} (out of memory, a class that does not link), which picocli does not
   * hand to its handler: one line too, not the JVM's stack dump. The trace goes to the log.
   */
  static int fatal(Throwable e, PrintWriter err) {
    LoggerFactory.getLogger(Tidemark.class).error("failed", e);
    String line = "tidemark: " + (e instanceof Error ? e.getClass().getSimpleName() + ": " + firstLine(e) + details()
        : describe(e));
    err.println(line);
    err.flush();
    LogFile.active().ifPresent(f -> LoggerFactory.getLogger(Tidemark.class).error(line));
    return FAILED;
  }

  static int exitCode(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConfigException) {
        return BAD_CONFIG;
      }
      if (t instanceof ServiceException) {
        return SERVICE_DOWN;
      }
    }
    return FAILED;
  }

  /** One line: ours as they are; the first line of others, with the root cause when it says more. */
  static String describe(Throwable e) {
    if (e instanceof StreamsFailed several) {
      return describe(several.failures().get(0));
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConfigException || t instanceof ServiceException) {
        return firstLine(t);
      }
    }
    if (e instanceof TidemarkException || ours(e) || e instanceof org.apache.spark.sql.AnalysisException) {
      // ours, and Spark's complaints about the SQL, say what to fix; ours that wraps a library's failure ("windowed-
      // counts failed: ...") says what failed, whose trace is in the log
      return firstLine(e) + (e instanceof TidemarkException && e.getCause() != null ? details() : "");
    }
    // Spark wraps a failed task in "Job aborted due to stage failure: ..."; the root cause says what failed
    Throwable root = rootCause(e);
    String msg = root == e || root.getMessage() == null ? firstLine(e)
        : root.getClass().getSimpleName() + ": " + firstLine(root);
    return msg + details();
  }

  private static String details() {
    return LogFile.active().map(f -> " [details in " + f + "; --debug prints them here]")
        .orElse(" [--debug shows the stack trace]");
  }

  /**
   * An IllegalArgumentException tidemark threw says what was wrong with an argument; one that the JDK or a library
   * threw ("Self-suppression not permitted") is a failure like any other, whose trace the line points to.
   */
  private static boolean ours(Throwable e) {
    StackTraceElement[] at = e.getStackTrace();
    return e instanceof IllegalArgumentException && at.length > 0 && at[0].getClassName().startsWith("io.tidemark.");
  }

  /**
   * A service gone away mid-run, said in place of the network error that reported it: "raw failed: cannot reach
   * the S3 server at ... (Connection refused); check `tidemark services status`".
   */
  static String describe(Throwable e, String outage) {
    String line = describe(e);
    Throwable root = rootCause(e);
    String said = root.getClass().getSimpleName() + ": " + firstLine(root);
    int at = line.indexOf(said);
    String what = at < 0 ? outage : line.substring(0, at) + outage;
    return what + "; check `tidemark services status`"
        + LogFile.active().map(f -> " [details in " + f + "]").orElse("");
  }

  private static Optional<String> outage(Throwable e, Tidemark root) {
    if (exitCode(e) != FAILED) {
      return Optional.empty();  // a setting or a service tidemark already named
    }
    TidemarkConfig config;
    try {
      config = root.config();
    } catch (RuntimeException bad) {
      return Optional.empty();
    }
    return Outage.describe(e, config);
  }

  private static Throwable rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }
}
