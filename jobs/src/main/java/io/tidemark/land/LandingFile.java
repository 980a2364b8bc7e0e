package io.tidemark.land;

import java.nio.charset.StandardCharsets;

/** One file of an arrival: JSON lines of one dataset. */
public record LandingFile(Feed dataset, String name, byte[] content) {
  public static LandingFile of(Feed dataset, String name, String text) {
    return new LandingFile(dataset, name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Lines in the file (a last line without newline counts). */
  public long lines() {
    long n = 0;
    for (byte b : content) {
      if (b == '\n') {
        n++;
      }
    }
    return content.length > 0 && content[content.length - 1] != '\n' ? n + 1 : n;
  }
}
