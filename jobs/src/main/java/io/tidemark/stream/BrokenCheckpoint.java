package io.tidemark.stream;

import java.io.File;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stream that failed on a file of its checkpoint, said as what to do about it: which file, why (its checksum beside
 * it no longer matches, it does not parse), and, when moving it aside is what releases it (the newest commit marker:
 * Spark runs that batch again from its offsets, and the batch's commits already in the tables are skipped; the newest
 * planned batch not yet committed: Spark plans it again), the command, with the checksum file Hadoop keeps beside it
 * ({@code .N.crc}), which would otherwise fail the next read. Any other broken file is a lost checkpoint. A library's
 * own report names no stream and no recipe ("ChecksumException: Checksum error: file:/... at 0 exp: ...").
 */
final class BrokenCheckpoint {
  private static final String RECIPE = "docs/troubleshooting.md#a-lost-or-corrupt-checkpoint";

  private BrokenCheckpoint() {}

  /** {@code failure} as one line naming the broken file and its release, when a file of {@code checkpoint} is at fault. */
  static RuntimeException explain(String stream, String checkpoint, RuntimeException failure) {
    if (fullDisk(failure)) {
      return failure; // nothing is broken: the next write fails too until there is space (docs: a full disk)
    }
    Optional<String> file = file(checkpoint, failure);
    if (file.isEmpty()) {
      return failure;
    }
    String path = file.get();
    String why = checksum(failure) ? "its checksum (" + crc(path) + ") does not match it" : "it does not read: "
        + reason(failure);
    return new StreamException(stream + ": its checkpoint file " + path + " is broken (" + why + "); "
        + release(checkpoint, path) + "; see " + RECIPE, failure);
  }

  /** The command that releases a broken file, or what to do when none does. */
  static String release(String checkpoint, String path) {
    String local = strip(checkpoint);
    if (local.contains("://")) {
      // object stores keep no checksum files, and their listings show no order of writes
      return "if it is the newest commits/N (or offsets/N without its commit), move it out of the checkpoint with an "
          + "S3 client and run the stream again; otherwise the checkpoint is lost, restore it from the backup";
    }
    Matcher m = Pattern.compile(Pattern.quote(local) + "/(commits|offsets)/(\\d+)").matcher(path);
    if (m.matches() && newest(local, m.group(1), Long.parseLong(m.group(2)))
        && (m.group(1).equals("commits") || !new File(local, "commits/" + m.group(2)).exists())) {
      String aside = local + ".broken";
      return "move it and its checksum out of the checkpoint, then run the stream again: mkdir -p " + aside + " && mv "
          + path + " " + crc(path) + " " + aside + "/";
    }
    return "this file cannot be moved aside: the checkpoint is lost, restore it from the backup";
  }

  private static Optional<String> file(String checkpoint, Throwable failure) {
    String local = strip(checkpoint);
    Pattern in = Pattern.compile("(?:file:)?(" + Pattern.quote(local) + "/[^\\s,;'\"]+)");
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t.getMessage() != null && (checksum(t) || t instanceof java.io.IOException
          || t instanceof IllegalStateException || t.getClass().getSimpleName().contains("Json"))) {
        Matcher m = in.matcher(t.getMessage());
        if (m.find()) {
          return Optional.of(m.group(1).replaceAll("[.:]+$", ""));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean fullDisk(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("No space left on device")) {
        return true;
      }
    }
    return false;
  }

  private static boolean checksum(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t.getClass().getSimpleName().equals("ChecksumException")) {
        return true;
      }
    }
    return false;
  }

  private static String reason(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName();
  }

  /** Whether batch {@code n} is the newest of the checkpoint's {@code log}. */
  private static boolean newest(String checkpoint, String log, long n) {
    String[] names = new File(checkpoint, log).list();
    if (names == null) {
      return false;
    }
    for (String name : names) {
      if (name.matches("\\d+") && Long.parseLong(name) > n) {
        return false;
      }
    }
    return true;
  }

  /** Hadoop's checksum of a file: {@code .<name>.crc} beside it. */
  private static String crc(String path) {
    int slash = path.lastIndexOf('/');
    return path.substring(0, slash + 1) + "." + path.substring(slash + 1) + ".crc";
  }

  private static String strip(String checkpoint) {
    String c = checkpoint.startsWith("file:") ? checkpoint.substring("file:".length()) : checkpoint;
    return c.endsWith("/") ? c.substring(0, c.length() - 1) : c;
  }
}
