package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Help that a person can read: every summary and description a whole sentence (the list of commands shows the
 * first one alone), every parameter label lowercase, every option's default in its description, and
 * {@code tidemark help <command> <subcommand>} printing the subcommand's help.
 */
class HelpTextTest {
  private static final Pattern LABEL = Pattern.compile("<[a-z][a-z0-9.|_-]*>");

  static List<CommandLine> everyCommand() {
    List<CommandLine> all = new ArrayList<>();
    List<CommandLine> todo = new ArrayList<>(List.of(Tidemark.commandLine(Map.of())));
    while (!todo.isEmpty()) {
      CommandLine cl = todo.remove(0);
      all.add(cl);
      // an alias maps to the same command again
      cl.getSubcommands().forEach((name, sub) -> {
        if (name.equals(sub.getCommandName())) {
          todo.add(sub);
        }
      });
    }
    return all;
  }

  /** A sentence: starts with a capital letter (or names an option or a command in backticks), ends with a period. */
  private static boolean sentence(String text) {
    String t = text.strip();
    return t.matches("(?s)([A-Z]|`|--).*\\.") && !t.contains("%n");
  }

  @Test
  void everySummaryAndDescriptionIsAWholeSentence() {
    List<String> bad = new ArrayList<>();
    for (CommandLine cl : everyCommand()) {
      CommandSpec spec = cl.getCommandSpec();
      String name = spec.qualifiedName(" ");
      String[] description = spec.usageMessage().description();
      if (description.length == 0 || !sentence(description[0])) {
        bad.add(name + ": summary " + (description.length == 0 ? "missing" : "'" + description[0] + "'"));
      }
      for (String paragraph : description) {
        if (!paragraph.isEmpty() && !sentence(paragraph)) {
          bad.add(name + ": description '" + paragraph + "'");
        }
      }
      for (ArgSpec arg : spec.args()) {
        String text = String.join(" ", arg.description());
        if (!sentence(text)) {
          bad.add(name + " " + display(arg) + ": '" + text + "'");
        }
      }
    }
    assertThat(bad).as("descriptions that are not whole sentences").isEmpty();
  }

  @Test
  void everyParameterLabelIsLowercase() {
    List<String> bad = new ArrayList<>();
    for (CommandLine cl : everyCommand()) {
      for (ArgSpec arg : cl.getCommandSpec().args()) {
        if (arg.arity().max() > 0 && !LABEL.matcher(arg.paramLabel()).matches()) {
          bad.add(cl.getCommandSpec().qualifiedName(" ") + " " + display(arg) + ": " + arg.paramLabel());
        }
      }
    }
    assertThat(bad).as("labels not written <lowercase>").isEmpty();
  }

  @Test
  void everyOptionSaysItsDefault() {
    List<String> bad = new ArrayList<>();
    for (CommandLine cl : everyCommand()) {
      for (OptionSpec o : cl.getCommandSpec().options()) {
        boolean flag = o.arity().max() == 0 || o.type() == boolean.class || o.type() == Boolean.class;
        boolean oneOfAGroup = o.group() != null && o.group().exclusive();
        if (flag || o.required() || oneOfAGroup || o.usageHelp() || o.versionHelp()) {
          continue;
        }
        String text = String.join(" ", o.description());
        if (o.hidden()) {
          // a setting: --help-all adds its default, or its description says what unset means
          Setting s = setting(o.longestName());
          if (s.defaultValue() == null && !text.contains("Unset: ")) {
            bad.add(o.longestName() + ": no default and no 'Unset:'");
          }
        } else if (!text.toLowerCase(java.util.Locale.ROOT).contains("default")) {
          bad.add(cl.getCommandSpec().qualifiedName(" ") + " " + o.longestName() + ": '" + text + "'");
        }
      }
    }
    assertThat(bad).as("options whose help does not say their default").isEmpty();
  }

  @Test
  void theSettingsShowTheirDefaults() {
    // the help wraps a long value at its dots (facts. event_counts): compared without white space
    String all = CommandLineTest.run(Map.of(), "--help-all").out().replaceAll("\\s+", "");
    for (Setting s : Setting.values()) {
      if (s.flag() != null && s.defaultValue() != null) {
        assertThat(all).as(s.env()).contains(("Env: " + s.env() + ". Default: " + s.defaultValue() + ".")
            .replaceAll("\\s+", ""));
      }
    }
  }

  @Test
  void helpOfACommandAndASubcommandIsTheirs() {
    assertThat(CommandLineTest.run(Map.of(), "help", "maintain", "compact").out())
        .isEqualTo(usage("maintain", "compact")).startsWith("Usage: tidemark maintain compact ");
    assertThat(CommandLineTest.run(Map.of(), "help", "restate", "merge").out())
        .startsWith("Usage: tidemark restate merge ");
    assertThat(CommandLineTest.run(Map.of(), "help", "stream").out()).isEqualTo(usage("stream"));
    assertThat(CommandLineTest.run(Map.of(), "help").out()).isEqualTo(usage());
    CommandLineTest.Run wrong = CommandLineTest.run(Map.of(), "help", "pipeline", "nope");
    assertThat(wrong.code()).isEqualTo(2);
    assertThat(wrong.err().strip()).isEqualTo("tidemark: no command 'nope' in tidemark pipeline; its commands: "
        + "show, check (see tidemark help --help)");
  }

  private static String usage(String... path) {
    CommandLine cl = Tidemark.commandLine(Map.of());
    for (String p : path) {
      cl = cl.getSubcommands().get(p);
    }
    StringWriter out = new StringWriter();
    cl.usage(new PrintWriter(out));
    return out.toString();
  }

  private static String display(ArgSpec arg) {
    return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
  }

  private static Setting setting(String flag) {
    for (Setting s : Setting.values()) {
      if (flag.equals(s.flag())) {
        return s;
      }
    }
    throw new AssertionError("a hidden option that is not a setting: " + flag);
  }
}
