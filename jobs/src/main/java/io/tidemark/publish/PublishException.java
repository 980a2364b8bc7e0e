package io.tidemark.publish;

import io.tidemark.TidemarkException;

/** A publish that did not happen: a failed check or a conflict, said in one line with where to look. */
public class PublishException extends TidemarkException {
  public PublishException(String message) {
    super(message.strip().replaceAll("\\s*\\R\\s*", " "));
  }

  /** {@code text} on one line, cut at {@code max} characters: a check's detail can quote a landed line or a row. */
  static String capped(String text, int max) {
    String line = text.strip().replaceAll("\\s*\\R\\s*", " ");
    return line.length() <= max ? line : line.substring(0, max - 3) + "...";
  }
}
