package io.tidemark.lakehouse.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InProcessLocalFileSystemTest {
  @Test
  void modesMapBitForBit() {
    assertThat(PosixFilePermissions.toString(InProcessLocalFileSystem.posix((short) 0644))).isEqualTo("rw-r--r--");
    assertThat(PosixFilePermissions.toString(InProcessLocalFileSystem.posix((short) 0755))).isEqualTo("rwxr-xr-x");
    assertThat(PosixFilePermissions.toString(InProcessLocalFileSystem.posix((short) 01750))).isEqualTo("rwxr-x---");
    assertThat(InProcessLocalFileSystem.posix((short) 0)).isEmpty();
  }

  /** What Spark's checkpoints do through file: (the setting SparkSessions gives): files, checksums, directories. */
  @Test
  void filesAndDirectoriesGetTheirModesAndChecksums(@TempDir java.nio.file.Path dir) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.file.impl", InProcessLocalFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    conf.set("fs.permissions.umask-mode", "022");
    try (FileSystem fs = FileSystem.get(dir.toUri(), conf)) {
      assertThat(fs).isInstanceOf(InProcessLocalFileSystem.class);
      Path sub = new Path(dir.toUri().toString(), "offsets");
      assertThat(fs.mkdirs(sub, new FsPermission((short) 0750))).isTrue();
      try (FSDataOutputStream out = fs.create(new Path(sub, "0"), new FsPermission((short) 0640), true, 4096,
          (short) 1, 1 << 20, null)) {
        out.writeBytes("v1\n");
      }
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("offsets"))))
          .isEqualTo("rwxr-x---");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("offsets/0"))))
          .isEqualTo("rw-r-----");
      assertThat(dir.resolve("offsets/.0.crc")).exists();
      assertThat(fs.open(new Path(sub, "0")).readAllBytes()).asString().isEqualTo("v1\n");
    }
  }
}
