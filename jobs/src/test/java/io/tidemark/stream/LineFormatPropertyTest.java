package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.core.Lines;
import io.tidemark.testing.LocalSpark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every landed line is archived or quarantined: the publish gate and {@code tidemark check} count a landed file's
 * lines by {@link Lines#count}, the raw streams read them with Spark's text source. Over generated files (blank
 * lines, CRLF endings, a last line with or without its newline, empty files, non-ASCII text) both count alike.
 */
class LineFormatPropertyTest {
  @TempDir
  Path dir;

  @Test
  void sparksLinesAreTheCoresLines() throws Exception {
    SplittableRandom rng = new SplittableRandom(17);
    String[] pieces = {"{\"event_id\": 1}", "", "  ", "\u00e9\ud83d\ude00", "not json", "{}"};
    long expected = 0;
    for (int f = 0; f < 60; f++) {
      StringBuilder text = new StringBuilder();
      for (int i = rng.nextInt(0, 8); i > 0; i--) {
        text.append(pieces[rng.nextInt(pieces.length)]).append(rng.nextInt(4) == 0 ? "\r\n" : "\n");
      }
      if (rng.nextBoolean()) {
        text.append(pieces[rng.nextInt(pieces.length)]); // a last line without its newline
      }
      byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
      Files.write(Files.createDirectories(dir.resolve("arrival=0001")).resolve("f" + f + ".jsonl"), content);
      expected += Lines.count(content);
    }
    long bySpark = LocalSpark.get().read().option("recursiveFileLookup", "true").text(dir.toString()).count();
    assertThat(bySpark).isEqualTo(expected).isPositive();
  }
}
