package io.tidemark.cli;

import io.tidemark.config.ConfigException;
import io.tidemark.services.ServiceException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns any failure into one line on stderr and an exit code: 2 for a bad setting, 3 for a service that cannot
 * be reached or started, 1 for anything else. {@code --debug} adds the stack trace.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
  static final int FAILED = 1;
  static final int BAD_CONFIG = 2;
  static final int SERVICE_DOWN = 3;

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, ParseResult parseResult) {
    PrintWriter err = cl.getErr();
    err.println("tidemark: " + describe(e));
    if (Tidemark.root(cl.getCommandSpec()).debug()) {
      e.printStackTrace(err);
    }
    err.flush();
    return exitCode(e);
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
    if (e.getClass().getPackageName().startsWith("io.tidemark") || e instanceof IllegalArgumentException
        || e instanceof org.apache.spark.sql.AnalysisException) {
      // ours, and Spark's complaints about the SQL, say all there is to say
      return firstLine(e);
    }
    // Spark wraps a failed task in "Job aborted due to stage failure: ..."; the root cause says what failed
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String msg = root == e || root.getMessage() == null ? firstLine(e)
        : root.getClass().getSimpleName() + ": " + firstLine(root);
    return msg + " [--debug shows the stack trace]";
  }

  static String firstLine(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    m = m.strip();
    int nl = m.indexOf('\n');
    String line = nl < 0 ? m : m.substring(0, nl).strip();
    // Spark appends "; line 1 pos 14;" and the plan after the message
    int plan = line.indexOf(";\n");
    return plan < 0 ? line : line.substring(0, plan);
  }
}
