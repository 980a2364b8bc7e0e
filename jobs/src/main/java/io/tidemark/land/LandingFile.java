package io.tidemark.land;

import io.tidemark.core.Lines;
import java.nio.charset.StandardCharsets;

/** One file of an arrival: JSON lines of one feed. */
public record LandingFile(String feed, String name, byte[] content) {
  public static LandingFile of(String feed, String name, String text) {
    return new LandingFile(feed, name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Lines in the file ({@link Lines#count}: a last line without newline counts). */
  public long lines() {
    return Lines.count(content);
  }
}
