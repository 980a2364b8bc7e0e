package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.fs.ChecksumException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokenCheckpointTest {
  @TempDir
  Path dir;

  private Path checkpoint(int commits) throws Exception {
    Path c = Files.createDirectories(dir.resolve("dedup"));
    Files.createDirectories(c.resolve("commits"));
    Files.createDirectories(c.resolve("offsets"));
    for (int i = 0; i <= commits; i++) {
      Files.writeString(c.resolve("commits/" + i), "v1\n{}");
      Files.writeString(c.resolve("offsets/" + i), "v1\n{}");
    }
    return c;
  }

  private static RuntimeException checksumError(Path file) {
    return new UncheckedIOException("cannot read " + file, new ChecksumException("Checksum error: file:" + file
        + " at 0 exp: 1208370498 got: 1034569856", 0));
  }

  /** The newest commit marker, broken: the line names the stream, the file, its checksum and the command. */
  @Test
  void theNewestCommitMarkerIsMovedAsideWithItsChecksum() throws Exception {
    Path c = checkpoint(4);
    RuntimeException e = BrokenCheckpoint.explain("dedup", c.toString(), checksumError(c.resolve("commits/4")));
    assertThat(e).isInstanceOf(StreamException.class);
    assertThat(e.getMessage()).isEqualTo("dedup: its checkpoint file " + c + "/commits/4 is broken (its checksum ("
        + c + "/commits/.4.crc) does not match it); move it and its checksum out of the checkpoint, then run the "
        + "stream again: mkdir -p " + c + ".broken && mv " + c + "/commits/4 " + c + "/commits/.4.crc " + c
        + ".broken/; see docs/troubleshooting.md#a-lost-or-corrupt-checkpoint");
  }

  /** An older file, or state: no one file to move; the checkpoint is lost. */
  @Test
  void anOlderFileMeansALostCheckpoint() throws Exception {
    Path c = checkpoint(4);
    RuntimeException e = BrokenCheckpoint.explain("dedup", c.toString(), checksumError(c.resolve("commits/2")));
    assertThat(e.getMessage()).contains("commits/2 is broken").contains("the checkpoint is lost, restore it from the "
        + "backup");
    RuntimeException state = BrokenCheckpoint.explain("dedup", c.toString(),
        checksumError(c.resolve("state/0/1/3.delta")));
    assertThat(state.getMessage()).contains("state/0/1/3.delta is broken").contains("the checkpoint is lost");
  }

  /** A failure that names no file of the checkpoint stays as it was. */
  @Test
  void otherFailuresStayAsTheyAre() throws Exception {
    Path c = checkpoint(1);
    IllegalStateException other = new IllegalStateException("cannot commit table facts.events");
    assertThat(BrokenCheckpoint.explain("dedup", c.toString(), other)).isSameAs(other);
  }
}
