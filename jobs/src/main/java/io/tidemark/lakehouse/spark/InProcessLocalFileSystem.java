package io.tidemark.lakehouse.spark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system (checksummed, as {@code file:} is by default) that sets a file's permissions in this
 * process. Without Hadoop's native library, {@link RawLocalFileSystem} starts a {@code chmod} process for every file
 * and directory it creates: a checkpoint's offset, commit and state files, each with its checksum file, about a
 * hundred processes per {@code tidemark stream all} of a small arrival, each a fork of the whole JVM. The checkpoints'
 * files and their checksums are the same; only the way their mode is set differs.
 */
public final class InProcessLocalFileSystem extends LocalFileSystem {
  public InProcessLocalFileSystem() {
    super(new Raw());
  }

  /** The raw file system under the checksums, whose permissions go through java.nio. */
  static final class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      Files.setPosixFilePermissions(pathToFile(p).toPath(), posix(permission.toShort()));
    }
  }

  /** The owner's, group's and others' read, write and execute bits of a mode (the sticky bit has no java.nio twin). */
  static Set<PosixFilePermission> posix(short mode) {
    PosixFilePermission[] bits = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ};
    Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
    for (int i = 0; i < bits.length; i++) {
      if ((mode & (1 << i)) != 0) {
        out.add(bits[i]);
      }
    }
    return out;
  }
}
