package io.tidemark;

/**
 * A failure tidemark understands: its message is one line that names what to fix, and the command line prints it
 * as it is. Anything else is a library's failure and is reported by its root cause.
 */
public class TidemarkException extends RuntimeException {
  public TidemarkException(String message) {
    super(message);
  }

  public TidemarkException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The first line of a message (Spark appends the plan below it); the class name when there is no message. */
  public static String firstLine(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    m = m.strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).strip();
  }
}
