package io.tidemark.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The recipes of docs/troubleshooting.md run as a person runs them: every line of a recipe's block, in the directory
 * that holds the tidemark home {@code .tidemark} (as from a checkout). A {@code ./tidemark} line is the real command in
 * a JVM of its own ({@link Cli}); {@code export NAME=value} sets a setting for the lines after it (as a shell would);
 * any other line (mv, tar, rm, sed) runs in bash. The checkout's pipeline files are copied beside the home. The placeholders a recipe leaves ({@code <hash of the commit before it>})
 * are filled in from what the failure printed; a line with one left in fails. Each line must succeed.
 */
public final class Recipes {
  private final Path page;
  private final Path dir;
  private final Map<String, String> env;

  /** {@code dir}: where the home {@code .tidemark} is; {@code env}: the commands' settings (its home that one). */
  public Recipes(Path page, Path dir, Map<String, String> env) {
    this.page = page;
    this.dir = dir;
    this.env = new HashMap<>(env);
    // the recipes run from a checkout, whose pipelines/ they may copy (the lost-checkpoint rebuild does)
    Path pipelines = page.toAbsolutePath().getParent().getParent().resolve("pipelines");
    try (var files = Files.list(pipelines)) {
      Files.createDirectories(dir.resolve("pipelines"));
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve("pipelines").resolve(f.getFileName()),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot copy " + pipelines + " beside the home", e);
    }
  }

  /** The settings the commands run with, the recipes' exports included. */
  public Map<String, String> env() {
    return Map.copyOf(env);
  }

  /** The first block of commands after "**Release.**" of the section {@code anchor}, run; each line's result. */
  public List<Cli.Result> run(String anchor, Map<String, String> fill) {
    return run(anchor, 0, fill);
  }

  /** The {@code block}-th block of commands after "**Release.**" of the section (0: the first). */
  public List<Cli.Result> run(String anchor, int block, Map<String, String> fill) {
    return run(anchor, block, fill, java.util.Set.of());
  }

  /**
   * The same; a line that starts with one of {@code looks} is a look at the state (`services status` while a service
   * is down), whose exit code says what it saw: it is not held to succeed.
   */
  public List<Cli.Result> run(String anchor, int block, Map<String, String> fill, java.util.Set<String> looks) {
    List<String> lines = Docs.recipeBlocks(page, anchor).get(block);
    assertThat(lines).as("#%s's commands", anchor).isNotEmpty();
    List<Cli.Result> results = new ArrayList<>();
    for (String line : lines) {
      String filled = line;
      for (Map.Entry<String, String> f : fill.entrySet()) {
        filled = filled.replace(f.getKey(), f.getValue());
      }
      assertThat(filled).as("#%s: a placeholder left in %s", anchor, line).doesNotContainPattern("<[a-z][^>]*>");
      Cli.Result r = line(filled);
      if (looks.stream().noneMatch(filled::startsWith)) {
        assertThat(r.exitCode()).as("#%s: %s -> %s", anchor, filled, r).isZero();
      }
      results.add(r);
    }
    return results;
  }

  /** One line of a recipe. */
  public Cli.Result line(String line) {
    List<String> words = Docs.words(line);
    if (words.isEmpty()) {
      return new Cli.Result(0, "", "", 0);
    }
    if (words.get(0).equals("./tidemark")) {
      return Cli.run(env, words.subList(1, words.size()).toArray(String[]::new));
    }
    if (words.get(0).equals("export")) {
      String[] kv = words.get(1).split("=", 2);
      // as a shell would: $PWD is where the recipe runs
      env.put(kv[0], kv[1].replace("$PWD", dir.toAbsolutePath().toString()));
      return new Cli.Result(0, "", "", 0);
    }
    return bash(line);
  }

  private Cli.Result bash(String line) {
    try {
      Path out = Files.createTempFile(dir, "recipe", ".out");
      ProcessBuilder pb = new ProcessBuilder("bash", "-c", line).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(out.toFile());
      long t0 = System.nanoTime();
      Process p = pb.start();
      if (!p.waitFor(300, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(line + ": hung");
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      Files.delete(out);
      System.out.printf("[recipe] %s -> exit %d%n", line, p.exitValue());
      return new Cli.Result(p.exitValue(), text, "", (System.nanoTime() - t0) / 1e9);
    } catch (IOException e) {
      throw new AssertionError("cannot run " + line, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
