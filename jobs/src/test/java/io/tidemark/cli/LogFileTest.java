package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Each run's log in a file of its own that outlives the commands after it, a bounded number of them kept. */
class LogFileTest {
  @TempDir
  Path dir;

  private static final LocalDateTime T = LocalDateTime.of(2026, 1, 2, 3, 4, 5, 6_000_000);

  @Test
  void aRunsFileIsNamedByItsCommandTimeAndProcess() {
    assertThat(LogFile.name("stream-all", T, 4711)).isEqualTo("tidemark-stream-all-20260102-030405.006-4711.log");
  }

  @Test
  void theCommandsWordsNameIt() {
    CommandLine cl = Tidemark.commandLine(Map.of());
    assertThat(LogFile.command(cl.parseArgs("stream", "all"))).isEqualTo("stream-all");
    assertThat(LogFile.command(cl.parseArgs("--debug", "maintain", "compact", "--dry-run"))).isEqualTo(
        "maintain-compact");
    assertThat(LogFile.command(cl.parseArgs("publish"))).isEqualTo("publish");
    assertThat(LogFile.command(cl.parseArgs("config"))).isEqualTo("config");
  }

  @Test
  void pruningKeepsTheNewestOfTheCommandOnly() throws Exception {
    for (int i = 0; i < 5; i++) {
      Files.writeString(dir.resolve(LogFile.name("stream-all", T.plusSeconds(i), 100 - i)), "run " + i);
      Files.writeString(dir.resolve(LogFile.name("stream", T.plusSeconds(i), 200 + i)), "stream " + i);
    }
    Files.writeString(dir.resolve("tidemark-stream-all.log"), "the single file of before");

    assertThat(LogFile.prune(dir, "stream-all", 2)).hasSize(3);

    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
          LogFile.name("stream-all", T.plusSeconds(3), 97), LogFile.name("stream-all", T.plusSeconds(4), 96),
          LogFile.name("stream", T, 200),
          LogFile.name("stream", T.plusSeconds(1), 201), LogFile.name("stream", T.plusSeconds(2), 202),
          LogFile.name("stream", T.plusSeconds(3), 203), LogFile.name("stream", T.plusSeconds(4), 204),
          "tidemark-stream-all.log");
    }
  }

  @Test
  void underLog4jTheFileIsAddedToItsAppenders() throws Exception {
    // spark-submit's binding: what log4j logs from here on goes to the run's file too
    Path file = dir.resolve(LogFile.name("publish", T, 1));
    assertThat(Log4jFile.attach(file)).isTrue();

    LogManager.getLogger("io.tidemark.cli.Tidemark").error("tidemark publish failed", new IllegalStateException("x"));

    assertThat(Files.readString(file, StandardCharsets.UTF_8)).contains("ERROR io.tidemark.cli.Tidemark - tidemark "
        + "publish failed").contains("java.lang.IllegalStateException: x").contains("\tat ");
  }
}
