package io.tidemark.services;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Finds a Java runtime of a minimum feature version, for servers that need a newer Java than the jobs. */
final class JavaRuntimes {
  private static final Pattern VERSION = Pattern.compile("JAVA_VERSION=\"(\\d+)");
  private static final List<Path> SEARCHED = List.of(Path.of("/usr/lib/jvm"), Path.of("/opt/java"),
      Path.of("/usr/local/lib/jvm"), Path.of(System.getProperty("user.home"), ".sdkman/candidates/java"));

  private JavaRuntimes() {}

  /**
   * The java binary to use: the configured one (a JDK home or a binary), which must be new enough, or the
   * newest one found in JAVA_HOME, this JVM and the usual install directories.
   */
  static Path find(int minVersion, Optional<Path> configured, String setting) {
    if (configured.isPresent()) {
      Path p = configured.get();
      Path bin = Files.isDirectory(p) ? p.resolve("bin/java") : p;
      Path home = bin.getParent() == null ? p : bin.getParent().getParent();
      int v = version(home).orElse(-1);
      if (!Files.isExecutable(bin) || v < minVersion) {
        throw new ServiceException(setting + ": " + p + " is not a Java " + minVersion + "+ runtime"
            + (v > 0 ? " (it is Java " + v + ")" : ""));
      }
      return bin;
    }
    List<Path> homes = new ArrayList<>();
    Optional.ofNullable(System.getenv("JAVA_HOME")).map(Path::of).ifPresent(homes::add);
    homes.add(Path.of(System.getProperty("java.home")));
    for (Path dir : SEARCHED) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> s = Files.list(dir)) {
          s.forEach(homes::add);
        } catch (IOException e) {
          // an unreadable directory is simply not searched
        }
      }
    }
    return homes.stream()
        .filter(h -> Files.isExecutable(h.resolve("bin/java")))
        .filter(h -> version(h).orElse(-1) >= minVersion)
        .max(Comparator.comparingInt(h -> version(h).orElse(-1)))
        .map(h -> h.resolve("bin/java"))
        .orElseThrow(() -> new ServiceException("no Java " + minVersion + "+ found for the Nessie server "
            + "(searched JAVA_HOME, " + SEARCHED.get(0) + ", " + SEARCHED.get(1) + "); install one or set " + setting));
  }

  /** The feature version from a JDK's {@code release} file. */
  static Optional<Integer> version(Path javaHome) {
    Path release = javaHome.resolve("release");
    if (!Files.isRegularFile(release)) {
      return Optional.empty();
    }
    try {
      Matcher m = VERSION.matcher(Files.readString(release, StandardCharsets.UTF_8));
      if (!m.find()) {
        return Optional.empty();
      }
      int major = Integer.parseInt(m.group(1));
      return Optional.of(major == 1 ? 8 : major);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }
}
