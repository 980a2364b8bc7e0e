package io.tidemark.land;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Reads an arrival from the local disk: one file, or every visible file of a directory. */
public final class LocalFiles {
  private LocalFiles() {}

  public static List<LandingFile> read(Path path, String feed) {
    if (!Files.exists(path)) {
      throw new LandingException("--from " + path + ": no such file or directory");
    }
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(path)) {
      try (Stream<Path> s = Files.list(path)) {
        s.filter(Files::isRegularFile)
            .filter(p -> !p.getFileName().toString().startsWith("."))
            .sorted()
            .forEach(files::add);
      } catch (IOException e) {
        throw new LandingException("--from " + path + ": cannot list (" + e.getMessage() + ")");
      }
      if (files.isEmpty()) {
        throw new LandingException("--from " + path + ": the directory holds no files" + (landingLayout(path)
            ? "; it is laid out as a landing zone (" + LandingLayout.SHAPE + "): land its arrivals with --replay "
                + path : ""));
      }
    } else {
      files.add(path);
    }
    List<LandingFile> out = new ArrayList<>();
    for (Path f : files) {
      try {
        out.add(new LandingFile(feed, f.getFileName().toString(), Files.readAllBytes(f)));
      } catch (IOException e) {
        throw new LandingException("--from " + f + ": cannot read (" + e.getMessage() + ")");
      }
    }
    return out;
  }

  /** Whether a directory holds a feed's arrivals as the landing zone lays them out ({@code events/arrival=0001/}). */
  private static boolean landingLayout(Path dir) {
    try (Stream<Path> feeds = Files.list(dir)) {
      return feeds.filter(Files::isDirectory).anyMatch(f -> {
        try (Stream<Path> s = Files.list(f)) {
          return s.anyMatch(p -> Files.isDirectory(p) && p.getFileName().toString().matches("arrival=\\d{4}"));
        } catch (IOException e) {
          return false;
        }
      });
    } catch (IOException e) {
      return false;
    }
  }

}
