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
        throw new LandingException("--from " + path + ": the directory holds no files");
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
}
