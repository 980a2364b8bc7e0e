package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import io.tidemark.publish.ArrivalChecks;
import io.tidemark.publish.PublishRefused;
import io.tidemark.testing.Docs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * Keeps the manual true to the command line: every {@code tidemark ...} line of README.md and docs/ parses (its
 * commands, subcommands and options exist), the README's table of commands names every one, every TIDEMARK_* name is
 * a setting (or one of the variables the scripts around the jar read, which configuration.md lists), and every link
 * to a page's heading, from the pages and from the code's messages, finds it.
 */
class DocsTest {
  private static final Pattern VARIABLE = Pattern.compile("TIDEMARK_[A-Z0-9_]+");
  private static final Set<String> ENDS = Set.of("&&", "||", "|", ";", ">", ">>", "2>&1", "&");

  /** A command line found in a page: where, and its words after the command. */
  record Found(Path page, String text, List<String> args) {
    @Override
    public String toString() {
      return Docs.repo().relativize(page) + ": " + text;
    }
  }

  @Test
  void everyCommandLineInACodeBlockParses() {
    List<Found> lines = new ArrayList<>();
    for (Path page : Docs.pages()) {
      for (String line : Docs.codeLines(Docs.read(page))) {
        args(Docs.words(line)).ifPresent(a -> lines.add(new Found(page, line.strip(), a)));
      }
    }
    assertThat(lines).as("command lines found").hasSizeGreaterThan(80);
    List<String> bad = new ArrayList<>();
    CommandLine tidemark = Tidemark.commandLine(Map.of());
    for (Found f : lines) {
      try {
        tidemark.parseArgs(f.args().toArray(String[]::new));
      } catch (ParameterException e) {
        bad.add(f + "  <- " + UsageErrors.what(e));
      }
    }
    assertThat(bad).as("command lines of the manual that tidemark refuses").isEmpty();
  }

  @Test
  void everyCommandInInlineCodeExists() {
    List<String> bad = new ArrayList<>();
    int seen = 0;
    for (Path page : Docs.pages()) {
      for (String span : Docs.inlineCode(Docs.read(page))) {
        List<String> words = Docs.words(span);
        if (words.isEmpty() || !(words.get(0).equals("tidemark") || words.get(0).equals("./tidemark"))) {
          continue;
        }
        if (launcherOnly(words.subList(1, words.size()))) {
          continue;
        }
        seen++;
        exists(words.subList(1, words.size())).ifPresent(p -> bad.add(Docs.repo().relativize(page) + ": `" + span
            + "`  <- " + p));
      }
    }
    assertThat(seen).as("inline commands found").isGreaterThan(80);
    assertThat(bad).as("inline commands of the manual with a command or option tidemark lacks").isEmpty();
  }

  /** The README's table of commands: each row's command exists, and every command and subcommand has a row. */
  @Test
  void theReadmesTableNamesEveryCommand() {
    Path readme = Docs.repo().resolve("README.md");
    String table = Docs.section(readme, "the-tidemark-command");
    Set<String> named = new TreeSet<>();
    List<String> bad = new ArrayList<>();
    for (String row : table.lines().filter(l -> l.startsWith("| `")).toList()) {
      String cell = Docs.inlineCode(row).get(0);
      List<String> words = Docs.words(cell);
      exists(words).ifPresent(p -> bad.add("`" + cell + "`  <- " + p));
      String command = words.get(0);
      named.add(command);
      if (words.size() > 1) {
        for (String alt : words.get(1).replaceAll("[\\[\\]]", "").split("\\|")) {
          named.add(command + " " + alt);
        }
      }
    }
    assertThat(bad).isEmpty();
    Set<String> commands = new TreeSet<>();
    for (CommandLine cl : HelpTextTest.everyCommand()) {
      String name = cl.getCommandSpec().qualifiedName(" ").replaceFirst("^tidemark ?", "");
      if (!name.isEmpty() && !name.equals("help")) {
        commands.add(name);
      }
    }
    assertThat(named).as("README.md's table of commands").containsAll(commands);
  }

  @Test
  void everyVariableIsASettingOrReadByTheScriptsAroundTheJar() {
    Set<String> settings = Arrays.stream(Setting.values()).map(Setting::env).collect(Collectors.toSet());
    Path configuration = Docs.repo().resolve("docs/configuration.md");
    Set<String> outside = new TreeSet<>();
    Matcher m = VARIABLE.matcher(Docs.section(configuration, "outside-tidemark-config"));
    while (m.find()) {
      outside.add(m.group());
    }
    String envExample = Docs.read(Docs.repo().resolve(".env.example"));
    String scripts = scripts();
    List<String> unread = outside.stream().filter(v -> !settings.contains(v) && !scripts.contains(v)).toList();
    assertThat(unread).as("variables configuration.md lists that no script, DAG or test reads").isEmpty();

    Set<String> unknown = new TreeSet<>();
    for (Path page : Docs.pages()) {
      Matcher v = VARIABLE.matcher(Docs.read(page));
      while (v.find()) {
        String name = v.group();
        boolean pattern = v.end() < v.regionEnd() && Docs.read(page).charAt(v.end()) == '*';
        if (!pattern && !settings.contains(name) && !outside.contains(name) && !envExample.contains(name + "=")) {
          unknown.add(Docs.repo().relativize(page) + ": " + name);
        }
      }
    }
    assertThat(unknown).as("TIDEMARK_* names that are no setting, nor in configuration.md's list of the others")
        .isEmpty();
  }

  @Test
  void everyLinkToAHeadingFindsIt() {
    Pattern link = Pattern.compile(
        "\\]\\(([a-z0-9-]+\\.md|\\.\\./README\\.md|docs/[a-z0-9-]+\\.md)?(#([a-z0-9_-]+))?\\)");
    List<String> bad = new ArrayList<>();
    int links = 0;
    int toHeadings = 0;
    for (Path page : Docs.pages()) {
      Matcher m = link.matcher(Docs.read(page));
      while (m.find()) {
        if (m.group(1) == null && m.group(3) == null) {
          continue;
        }
        links++;
        toHeadings += m.group(3) == null ? 0 : 1;
        Path target = m.group(1) == null ? page : page.resolveSibling(m.group(1)).normalize();
        check(target, m.group(3), Docs.repo().relativize(page) + ": " + m.group(), bad);
      }
    }
    // a pattern that matched nothing would check nothing: the pages link to each other and to headings by the dozen
    assertThat(links).as("links between the pages found").isGreaterThan(100);
    assertThat(toHeadings).as("links to a heading found").isGreaterThan(40);
    // the pages the code's messages and the DAGs' docs send a user to
    // (an anchor the code completes, such as PublishRefused's per check, ends with a hyphen: checked on its own)
    Pattern named = Pattern.compile("docs/([a-z0-9-]+\\.md)#([a-z0-9_-]*[a-z0-9_])\\b(?!-)");
    int fromCode = 0;
    for (Path source : sources()) {
      Matcher m = named.matcher(Docs.read(source));
      while (m.find()) {
        fromCode++;
        check(Docs.repo().resolve("docs").resolve(m.group(1)), m.group(2),
            Docs.repo().relativize(source) + ": " + m.group(), bad);
      }
    }
    assertThat(fromCode).as("the code's and the DAGs' links to a heading found").isGreaterThan(10);
    assertThat(bad).as("links to a page or heading that is not there").isEmpty();
  }

  /** Every check a publish can be refused by has its recipe, under the anchor the refusal names. */
  @Test
  void everyCheckOfThePublishHasItsRecipe() {
    Set<String> anchors = Docs.sections(Docs.repo().resolve("docs/troubleshooting.md")).keySet();
    for (String check : List.of(ArrivalChecks.WRITERS, ArrivalChecks.LINES, ArrivalChecks.SCD2, ArrivalChecks.WINDOWS,
        ArrivalChecks.SAME_ARRIVALS, ArrivalChecks.EXPECTATIONS)) {
      String recipe = PublishRefused.recipe(check);
      assertThat(anchors).as(recipe).contains(recipe.substring(recipe.indexOf('#') + 1));
    }
  }

  private static void check(Path page, String anchor, String where, List<String> bad) {
    if (!Files.isRegularFile(page)) {
      bad.add(where + "  <- no page " + page);
    } else if (anchor != null && !Docs.sections(page).containsKey(anchor)) {
      bad.add(where + "  <- no heading #" + anchor + " in " + page.getFileName());
    }
  }

  /**
   * The words after the command, when {@code words} run tidemark: as the line's command (after variables set for it),
   * in a container ({@code docker compose exec <service> .../tidemark}), or as spark-submit's application.
   */
  private static java.util.Optional<List<String>> args(List<String> words) {
    int first = 0;
    while (first < words.size() && words.get(first).matches("[A-Z_][A-Z0-9_]*=.*")) {
      first++;
    }
    boolean runner = first < words.size() && List.of("docker", "spark-submit").contains(words.get(first));
    for (int i = first; i < words.size(); i++) {
      String w = words.get(i);
      boolean command = w.equals("tidemark") || w.endsWith("/tidemark") || w.equals("infra/spark/submit")
          || w.endsWith("/tidemark-spark.jar");
      if (!command && !runner) {
        return java.util.Optional.empty();
      }
      if (command) {
        List<String> args = new ArrayList<>();
        for (String a : words.subList(i + 1, words.size())) {
          if (ENDS.contains(a)) {
            break;
          }
          if (a.endsWith(";")) {
            args.add(a.substring(0, a.length() - 1));
            break;
          }
          args.add(a);
        }
        return launcherOnly(args) ? java.util.Optional.empty() : java.util.Optional.of(args);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * The launcher's own options ({@code -J<option>}, {@code --java-options}, {@code --class-archive},
   * {@code --driver-only}), which the jar never sees.
   */
  private static boolean launcherOnly(List<String> args) {
    return !args.isEmpty() && (args.get(0).startsWith("-J") || args.get(0).equals("--java-options")
        || args.get(0).equals("--class-archive") || args.get(0).equals("--driver-only"));
  }

  /**
   * What is wrong with an inline command, leniently (it may be a synopsis): the words name commands, subcommands
   * ({@code a|b} each, {@code [a]} too) and options of the command they belong to; a placeholder ({@code <job>},
   * {@code ...}, a value) ends the commands.
   */
  private static final CommandLine TIDEMARK = Tidemark.commandLine(Map.of());

  private static java.util.Optional<String> exists(List<String> words) {
    List<CommandLine> at = List.of(TIDEMARK);
    boolean commands = true;
    for (String raw : words) {
      String w = raw.replaceAll("^\\[|]$", "");
      if (w.startsWith("-")) {
        String name = w.split("=", 2)[0];
        for (CommandLine cl : at) {
          if (cl.getCommandSpec().findOption(name) == null) {
            return java.util.Optional.of(cl.getCommandSpec().qualifiedName(" ") + " has no option " + name);
          }
        }
        continue;
      }
      boolean placeholder = w.startsWith("<") || w.equals("...") || w.equals("\u2026");
      if (!commands || placeholder || at.stream().allMatch(cl -> cl.getSubcommands().isEmpty())) {
        commands = false;
        continue;
      }
      List<CommandLine> next = new ArrayList<>();
      for (String alt : w.split("\\|")) {
        for (CommandLine cl : at) {
          CommandLine sub = cl.getSubcommands().get(alt);
          if (sub == null) {
            return java.util.Optional.of(cl.getCommandSpec().qualifiedName(" ") + " has no command " + alt);
          }
          next.add(sub);
        }
      }
      at = next;
    }
    return java.util.Optional.empty();
  }

  /** What reads settings besides the jar: scripts, DAGs, compose, the launcher, the tests. */
  private static String scripts() {
    StringBuilder all = new StringBuilder();
    for (Path p : sources()) {
      all.append(Docs.read(p)).append('\n');
    }
    return all.toString();
  }

  private static List<Path> sources() {
    Path repo = Docs.repo();
    Set<Path> out = new LinkedHashSet<>();
    for (String top : List.of("tidemark", "run-tests", ".ci/run", "docker-compose.yml", ".env.example")) {
      if (Files.isRegularFile(repo.resolve(top))) {
        out.add(repo.resolve(top));
      }
    }
    for (String dir : List.of("infra", "dags", "jobs/src")) {
      try (Stream<Path> files = Files.walk(repo.resolve(dir))) {
        files.filter(Files::isRegularFile).filter(p -> !p.toString().contains("/__pycache__/"))
            .filter(p -> p.toString().matches(".*\\.(java|py|sh|yml|yaml|properties|env|conf|txt)$")
                || !p.getFileName().toString().contains("."))
            .forEach(out::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new ArrayList<>(out);
  }
}
