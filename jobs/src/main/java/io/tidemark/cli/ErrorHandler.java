package io.tidemark.cli;

import static io.tidemark.TidemarkException.firstLine;

import io.tidemark.Finding;
import io.tidemark.TidemarkException;
import io.tidemark.config.ConfigException;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Outage;
import io.tidemark.services.ServiceException;
import java.io.PrintWriter;
import java.util.Optional;
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
    Optional<String> outage = outage(e, root);
    err.println("tidemark: " + outage.map(o -> describe(e, o)).orElseGet(() -> describe(e)));
    // a finding is what the data says, with its next step: where in the code it was found says nothing more
    boolean trace = !(e instanceof Finding);
    if (trace && root.debug()) {
      e.printStackTrace(err);
    } else if (trace && LogFile.active().isPresent()) {
      LoggerFactory.getLogger(Tidemark.class).error(cl.getCommandSpec().qualifiedName(" ") + " failed", e);
    }
    err.flush();
    return outage.isPresent() ? SERVICE_DOWN : exitCode(e);
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
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConfigException || t instanceof ServiceException) {
        return firstLine(t);
      }
    }
    if (e instanceof TidemarkException || e instanceof IllegalArgumentException
        || e instanceof org.apache.spark.sql.AnalysisException) {
      // ours, and Spark's complaints about the SQL, say all there is to say
      return firstLine(e);
    }
    // Spark wraps a failed task in "Job aborted due to stage failure: ..."; the root cause says what failed
    Throwable root = rootCause(e);
    String msg = root == e || root.getMessage() == null ? firstLine(e)
        : root.getClass().getSimpleName() + ": " + firstLine(root);
    return msg + LogFile.active().map(f -> " [details in " + f + "; --debug prints them here]")
        .orElse(" [--debug shows the stack trace]");
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
