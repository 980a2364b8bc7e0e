package io.tidemark.cli;

import io.tidemark.config.Setting;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.Column.Overflow;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Help a person can read: a command's help shows its own options and an example; the 30-odd settings every
 * command takes as flags are listed once, grouped, by {@code --help-all} (and with their values by
 * {@code tidemark config}).
 */
final class Help {
  static final String HELP_ALL = "--help-all";

  /** One line per command, run as it is written (from a checkout, {@code ./tidemark} in place of tidemark). */
  private static final Map<String, String> EXAMPLES = Map.ofEntries(
      Map.entry("tidemark", "tidemark demo"),
      Map.entry("tidemark services", "tidemark services status"),
      Map.entry("tidemark driver", "tidemark driver start"),
      Map.entry("tidemark driver start", "tidemark driver start"),
      Map.entry("tidemark driver stop", "tidemark driver stop"),
      Map.entry("tidemark driver status", "tidemark driver status"),
      Map.entry("tidemark driver serve", "tidemark driver serve --listen 0.0.0.0:7078"),
      Map.entry("tidemark services up", "tidemark services up"),
      Map.entry("tidemark services down", "tidemark services down"),
      Map.entry("tidemark services status", "tidemark services status"),
      Map.entry("tidemark bootstrap", "tidemark bootstrap"),
      Map.entry("tidemark land", "tidemark land --scenario generated --events 50000 --arrivals 5 --seed 7"),
      Map.entry("tidemark stream", "tidemark stream raw --feed companies"),
      Map.entry("tidemark pipeline", "tidemark pipeline show"),
      Map.entry("tidemark pipeline show", "tidemark pipeline show --pipeline pipelines/shop.yml --format json"),
      Map.entry("tidemark pipeline check", "tidemark pipeline check pipelines/shop.yml"),
      Map.entry("tidemark publish", "tidemark publish --dry-run"),
      Map.entry("tidemark restate", "tidemark restate --report-dir /tmp/lateness"),
      Map.entry("tidemark restate plan", "tidemark restate plan --run-id 42"),
      Map.entry("tidemark restate write", "tidemark restate write --run-id 42"),
      Map.entry("tidemark restate audit", "tidemark restate audit --run-id 42"),
      Map.entry("tidemark restate merge", "tidemark restate merge --run-id 42"),
      Map.entry("tidemark restate tag", "tidemark restate tag --run-id 42"),
      Map.entry("tidemark maintain", "tidemark maintain all --dry-run"),
      Map.entry("tidemark maintain compact", "tidemark maintain compact --table facts.events --min-input-files 10"),
      Map.entry("tidemark maintain gc", "tidemark maintain gc --retain \"7 days\" --grace \"6 hours\" --delete"),
      Map.entry("tidemark maintain branches", "tidemark maintain branches --keep 5 --max-age \"30 days\" --dry-run"),
      Map.entry("tidemark maintain landing", "tidemark maintain landing --archive archive/"),
      Map.entry("tidemark maintain all", "tidemark maintain all --delete"),
      Map.entry("tidemark bench maintenance", "tidemark bench maintenance --arrivals 200"),
      Map.entry("tidemark bench driver", "tidemark bench driver --commands 1000 --compare-rounds 3"),
      Map.entry("tidemark check", "tidemark check --branch ingest"),
      Map.entry("tidemark report", "tidemark report --out /tmp/pipeline.html"),
      Map.entry("tidemark evolve", "tidemark evolve list"),
      Map.entry("tidemark evolve list", "tidemark evolve list"),
      Map.entry("tidemark evolve promote", "tidemark evolve promote events region --type STRING"),
      Map.entry("tidemark bench", "tidemark bench streams --only state --runs 10"),
      Map.entry("tidemark bench streams", "tidemark bench streams --sizes 100000 --repeat 1"),
      Map.entry("tidemark bench scd2", "tidemark bench scd2 --sizes 1000,10000"),
      Map.entry("tidemark bench restate", "tidemark bench restate --histories 50000"),
      Map.entry("tidemark bench publish", "tidemark bench publish --seed-rounds 2 --history 2 --measured 2"),
      Map.entry("tidemark bench latency", "tidemark bench latency --events 1000000 --skip-cold"),
      Map.entry("tidemark bench drift", "tidemark bench drift --lines 200000 --history 5000 --factor 10"),
      Map.entry("tidemark bench expectations", "tidemark bench expectations --events 50000 --arrivals 3 --rounds 4"),
      Map.entry("tidemark bench soak", "tidemark bench soak --arrivals 100 --busy-threads 1"),
      Map.entry("tidemark sql", "tidemark sql --format json \"SELECT * FROM dims.companies@main\""),
      Map.entry("tidemark log", "tidemark log ingest --max-commits 10"),
      Map.entry("tidemark demo", "tidemark demo"),
      Map.entry("tidemark config", "tidemark config --nessie-ref dev"),
      Map.entry("tidemark help", "tidemark help restate merge"));

  private Help() {}

  /** The width help is wrapped to (picocli's own). */
  static final int WIDTH = 80;
  /** What picocli lays the help out in: wide enough that it wraps nothing, which {@link #wrap} then does. */
  private static final int UNWRAPPED = 1000;

  /**
   * Adds the example and the note on settings to the help of {@code root} and every command below it, gives every
   * command the root's version, and wraps the help at spaces only: picocli's own wrapping breaks a line wherever
   * Java's line breaker allows, inside {@code docs/troubleshooting.md} or {@code ns.table@branch}, which a person
   * then cannot copy.
   */
  static void decorate(CommandLine root) {
    root.getCommandSpec().usageMessage().footer("", "Example: " + EXAMPLES.get("tidemark"), settingsNote()[1]);
    below(root);
    root.setUsageHelpWidth(UNWRAPPED);
    wrapSections(root);
  }

  private static void wrapSections(CommandLine cl) {
    cl.getHelpSectionMap().replaceAll((key, section) -> CommandLine.Model.UsageMessageSpec.SECTION_KEY_SYNOPSIS
        .equals(key)
        // the synopsis goes on after "Usage: ", its heading
        ? help -> wrap(help.synopsisHeading() + section.render(help), WIDTH).substring(help.synopsisHeading().length())
        : CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER.equals(key)
        // laid out unwrapped, picocli drops the footer's first line when it is empty: the blank line before it
        ? help -> "\n" + wrap(section.render(help).replaceFirst("^\n", ""), WIDTH)
        : help -> wrap(section.render(help), WIDTH));
    if (cl.getCommandSpec().versionProvider() == null) {
      // -V on a subcommand printed nothing: every command is the same tidemark
      cl.getCommandSpec().versionProvider(new Tidemark.Version());
    }
    cl.getSubcommands().values().forEach(Help::wrapSections);
  }

  /**
   * {@code text} wrapped to {@code width} at spaces only. A line too long goes on indented under where its text
   * starts: an option's or a setting's description (after the two spaces that end its names), the synopsis's options
   * (after the command's name), else its own indentation.
   */
  static String wrap(String text, int width) {
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(wrapLine(line, width));
    }
    return out.toString();
  }

  private static String wrapLine(String line, int width) {
    if (line.length() <= width) {
      return line;
    }
    int hang = hangingIndent(line);
    StringBuilder out = new StringBuilder();
    String rest = line;
    boolean first = true;
    while (rest.length() > width) {
      int cut = rest.lastIndexOf(' ', width);
      int min = first ? leading(rest) : hang;
      if (cut <= min) {
        // one word longer than the line: it stays whole
        cut = rest.indexOf(' ', width);
        if (cut < 0) {
          break;
        }
      }
      out.append(rest, 0, cut).append('\n');
      String next = rest.substring(cut).stripLeading();
      rest = " ".repeat(hang) + next;
      first = false;
    }
    return out.append(rest).toString();
  }

  /** Where the wrapped part of a line goes on (see {@link #wrap}). */
  private static int hangingIndent(String line) {
    if (line.startsWith("Usage: ")) {
      int options = line.indexOf(" [");
      return options < 0 ? leading(line) + 2 : options + 1;
    }
    int lead = leading(line);
    if (lead > 0 || line.startsWith("-")) {
      // an option's or a setting's row: its names, two spaces or more, its description
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s*\\S.*?\\S( {2,})\\S").matcher(line);
      if (m.find() && m.end(1) < line.length() / 2 + 20) {
        return m.end(1) + 2;
      }
      if (lead >= 10) {
        return lead + 2; // a description under a name too long to have it beside
      }
    }
    return lead;
  }

  private static int leading(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  private static void below(CommandLine root) {
    for (CommandLine cl : root.getSubcommands().values()) {
      CommandSpec spec = cl.getCommandSpec();
      // its own options in the order written, the standard ones (-h, -V, --debug, --help-all) after them
      spec.usageMessage().sortOptions(false);
      String example = EXAMPLES.get(spec.qualifiedName(" "));
      spec.usageMessage().footer(example == null ? settingsNote() : new String[] {"", "Example: " + example,
          settingsNote()[1]});
      below(cl);
    }
  }

  private static String[] settingsNote() {
    return new String[] {"", "Settings: every TIDEMARK_* variable is also a flag on every command (--home, "
        + "--nessie-uri, --s3-endpoint, ...); `tidemark config` shows their values, --help-all lists them."};
  }

  /** Whether --help-all was given; then prints the deepest command's help and the settings, grouped. */
  static boolean all(ParseResult pr) {
    boolean all = false;
    ParseResult last = pr;
    for (ParseResult p = pr; p != null; p = p.subcommand()) {
      all |= p.hasMatchedOption(HELP_ALL);
      last = p;
    }
    if (all) {
      CommandLine cl = last.commandSpec().commandLine();
      PrintWriter out = cl.getOut();
      cl.usage(out);
      java.io.StringWriter settings = new java.io.StringWriter();
      printSettings(cl, new PrintWriter(settings, true));
      out.print(wrap(settings.toString(), WIDTH));
      out.flush();
    }
    return all;
  }

  private static void printSettings(CommandLine cl, PrintWriter out) {
    Map<String, TextTable> groups = new LinkedHashMap<>();
    CommandLine.Help help = cl.getHelp();
    int width = cl.getUsageHelpWidth();
    for (Setting s : Setting.values()) {
      if (s.flag() == null) {
        continue;  // secrets come from the environment only, never from a command line
      }
      TextTable table = groups.computeIfAbsent(group(s), g -> TextTable.forColumns(help.colorScheme(),
          new Column(30, 2, Overflow.SPAN), new Column(width - 30, 1, Overflow.WRAP)));
      table.addRowValues(s.flag() + "=" + s.label(), s.description() + " Env: " + s.env() + "."
          + (s.defaultValue() == null ? "" : " Default: " + s.defaultValue() + "."));
    }
    out.println();
    out.println("Settings (flags on every command; each overrides its TIDEMARK_* variable):");
    groups.forEach((name, table) -> {
      out.println(" " + name + ":");
      out.print(table);
    });
  }

  private static String group(Setting s) {
    String n = s.name();
    if (n.startsWith("TABLE_")) {
      return "Tables";
    }
    // the Iceberg REST catalog is Nessie's, served next to its API
    if (n.equals("HOME") || n.startsWith("NESSIE_") || n.startsWith("ICEBERG_") || n.startsWith("S3_")) {
      return "Services";
    }
    if (n.endsWith("_BUCKET") || n.startsWith("WAREHOUSE") || n.startsWith("CHECKPOINT")) {
      return "Storage";
    }
    return List.of("SPARK_MASTER", "SHUFFLE_PARTITIONS").contains(n) ? "Spark" : "Streams";
  }
}
