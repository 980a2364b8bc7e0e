package io.tidemark.land;

import io.tidemark.lakehouse.storage.Storage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Arrivals that were landed before, somewhere else: a local directory or an S3 prefix laid out as the landing zone
 * is ({@link LandingLayout}, what {@code land --to-dir} and {@code land --prefix} write). Replaying
 * it lands each arrival under its own number, so a run of the streams sees the arrivals in the order they came.
 */
public final class LandedPrefix implements Scenario {
  private final String location;
  private final List<Arrival> arrivals;

  private LandedPrefix(String location, List<Arrival> arrivals) {
    this.location = location;
    this.arrivals = arrivals;
  }

  /** {@code s3://bucket/prefix} (read with {@code storage}) or a local directory: the files of {@code feeds}. */
  public static LandedPrefix read(String location, Storage storage, Collection<String> feeds) {
    Map<Integer, List<LandingFile>> files = new TreeMap<>();
    if (isS3(location)) {
      String rest = location.substring(location.indexOf("://") + 3);
      int slash = rest.indexOf('/');
      String bucket = slash < 0 ? rest : rest.substring(0, slash);
      String prefix = slash < 0 ? "" : rest.substring(slash + 1);
      if (!prefix.isEmpty() && !prefix.endsWith("/")) {
        prefix += "/";
      }
      if (!storage.bucketExists(bucket)) {
        throw new LandingException("--replay " + location + ": no bucket " + bucket);
      }
      for (Storage.ObjectInfo o : storage.list(bucket, prefix)) {
        add(files, o.key().substring(prefix.length()), feeds, () -> storage.get(bucket, o.key()));
      }
    } else {
      Path root = Path.of(location);
      if (!Files.isDirectory(root)) {
        throw new LandingException("--replay " + location + ": no such directory");
      }
      try (Stream<Path> s = Files.walk(root)) {
        for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
          add(files, root.relativize(p).toString().replace('\\', '/'), feeds, () -> {
            try {
              return Files.readAllBytes(p);
            } catch (IOException e) {
              throw new LandingException("--replay: cannot read " + p + " (" + e.getMessage() + ")");
            }
          });
        }
      } catch (IOException e) {
        throw new LandingException("--replay " + location + ": cannot list (" + e.getMessage() + ")");
      }
    }
    if (files.isEmpty()) {
      throw new LandingException("--replay " + location + ": no " + LandingLayout.feedDirs(feeds)
          + " files under it (the layout `tidemark land --to-dir` writes)");
    }
    List<Arrival> arrivals = new ArrayList<>();
    files.forEach((n, fs) -> arrivals.add(new Arrival(n, fs)));
    return new LandedPrefix(location, List.copyOf(arrivals));
  }

  public static boolean isS3(String location) {
    return location.startsWith("s3://") || location.startsWith("s3a://");
  }

  private static void add(Map<Integer, List<LandingFile>> files, String relative, Collection<String> feeds,
                          Supplier<byte[]> content) {
    LandingLayout.parse(relative, feeds).ifPresent(p -> files.computeIfAbsent(p.arrival(), k -> new ArrayList<>())
        .add(new LandingFile(p.feed(), p.name(), content.get())));
  }

  @Override
  public String name() {
    return "landed";
  }

  @Override
  public String description() {
    return "the arrivals landed under " + location;
  }

  /**
   * The arrivals by number; a number missing from the layout (e.g. 1, 2, 4) is a gap the caller sees, not one
   * filled in.
   */
  @Override
  public List<Arrival> arrivals() {
    return arrivals;
  }
}
