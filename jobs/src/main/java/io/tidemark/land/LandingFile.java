package io.tidemark.land;

import io.tidemark.core.Feed;
import io.tidemark.core.Lines;
import java.nio.charset.StandardCharsets;

/** One file of an arrival: JSON lines of one dataset. */
public record LandingFile(Feed dataset, String name, byte[] content) {
  public static LandingFile of(Feed dataset, String name, String text) {
    return new LandingFile(dataset, name, text.getBytes(StandardCharsets.UTF_8));
  }

  /** Lines in the file ({@link Lines#count}: a last line without newline counts). */
  public long lines() {
    return Lines.count(content);
  }
}
