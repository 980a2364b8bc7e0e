package io.tidemark.cli;

import io.tidemark.TidemarkException;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A command line that does not parse, said in one line with where the usage is, exit code 2:
 * {@code tidemark: unknown option '--foo' (see tidemark land --help)}. Picocli's own handler printed the whole usage
 * (some 50 lines for {@code land}) after its message, which buried the message.
 */
final class UsageErrors implements IParameterExceptionHandler {
  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println("tidemark: " + what(ex) + " (see " + cl.getCommandSpec().qualifiedName(" ") + " --help)");
    err.flush();
    return ErrorHandler.BAD_CONFIG;
  }

  /** What is wrong, in picocli's words where they say it, lower-cased as every tidemark line starts. */
  static String what(ParameterException ex) {
    if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
      String first = u.getUnmatched().get(0);
      boolean hasCommands = !ex.getCommandLine().getSubcommands().isEmpty();
      if (first.startsWith("-")) {
        return "unknown option '" + first + "'";
      }
      return hasCommands ? "unknown command '" + first + "'" : "unexpected argument '" + first + "'";
    }
    // picocli starts some of its messages so, which the line's own "tidemark:" says already
    String line = TidemarkException.firstLine(ex).strip().replaceFirst("^Error: ", "");
    return line.isEmpty() ? "bad command line" : line.substring(0, 1).toLowerCase(Locale.ROOT) + line.substring(1);
  }
}
