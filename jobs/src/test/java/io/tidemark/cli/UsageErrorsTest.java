package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command line that does not parse is one line on stderr, {@code tidemark: <what is wrong> (see <command>
 * --help)}, exit code 2, nothing on stdout: every command and subcommand with an option it does not have, and with an
 * argument missing (a required one left out, else an option that takes a value given none). Parse errors come before
 * any service is asked, so these run without one.
 */
class UsageErrorsTest {
  private static final int BAD_OPTION = 2;

  @Test
  void everyCommandWithAnOptionItDoesNotHave() {
    for (CommandLine cl : HelpTextTest.everyCommand()) {
      // with what it requires, so that the unknown option is what is wrong
      List<String> args = new ArrayList<>(required(cl.getCommandSpec()));
      args.add("--no-such-option");
      String[] line = line(cl, args.toArray(String[]::new));
      CommandLineTest.Run r = CommandLineTest.run(Map.of(), line);
      assertOneLine(r, line, "unknown option '--no-such-option'", cl);
    }
  }

  @Test
  void everyCommandWithAnArgumentMissing() {
    List<String> covered = new ArrayList<>();
    for (CommandLine cl : HelpTextTest.everyCommand()) {
      CommandSpec spec = cl.getCommandSpec();
      List<String> args = new ArrayList<>(List.of(line(cl)));
      String expected;
      ArgSpec required = spec.args().stream().filter(a -> a.required() && a.group() == null).findFirst()
          .orElse(null);
      if (required != null || spec.argGroups().stream().anyMatch(g -> g.multiplicity().min() > 0)) {
        // the required argument left out
        expected = required instanceof OptionSpec o ? "missing required option: '" + o.longestName()
            : required != null ? "missing required parameter" + (spec.positionalParameters().stream()
                .filter(x -> x.required()).count() > 1 ? "s" : "") + ": '" + required.paramLabel()
            : "missing required argument (specify one of these)";
      } else {
        // an option that takes a value, given none: the command's own, else a setting every command takes
        OptionSpec o = spec.options().stream().filter(x -> !x.hidden() && x.arity().min() > 0).findFirst()
            .orElse(spec.findOption("--home"));
        args.add(o.longestName());
        expected = "missing required parameter for option '" + o.longestName() + "'";
      }
      CommandLineTest.Run r = CommandLineTest.run(Map.of(), args.toArray(String[]::new));
      assertOneLine(r, args.toArray(String[]::new), expected, cl);
      covered.add(spec.qualifiedName(" "));
    }
    assertThat(covered).as("commands and subcommands").hasSizeGreaterThan(30)
        .contains("tidemark land", "tidemark sql", "tidemark restate merge", "tidemark maintain landing");
  }

  @Test
  void anUnknownCommandIsNamed() {
    CommandLineTest.Run r = CommandLineTest.run(Map.of(), "restate", "nope");
    assertThat(r.err()).isEqualTo("tidemark: unknown command 'nope' (see tidemark restate --help)\n");
    assertThat(r.code()).isEqualTo(BAD_OPTION);
    CommandLineTest.Run stream = CommandLineTest.run(Map.of(), "stream", "nope");
    assertThat(stream.err()).isEqualTo("tidemark: no stream 'nope' in the pipeline seed (its streams: raw, dedup, "
        + "windowed-counts, raw-companies, scd2, or all)\n");
    assertThat(stream.code()).isEqualTo(BAD_OPTION);
    assertThat(CommandLineTest.run(Map.of(), "sql", "SELECT 1", "extra").err())
        .isEqualTo("tidemark: unexpected argument 'extra' (see tidemark sql --help)\n");
  }

  @Test
  void anOptionOutOfRangeIsNamedToo() {
    CommandLineTest.Run r = CommandLineTest.run(Map.of(), "bench", "publish", "--only", "neither");
    assertThat(r.err())
        .isEqualTo("tidemark: --only: seed or history, not neither (see tidemark bench publish --help)\n");
    assertThat(r.code()).isEqualTo(BAD_OPTION);
  }

  /** What a command requires, given: its required options and parameters, the first option of a required group. */
  private static List<String> required(CommandSpec spec) {
    List<String> out = new ArrayList<>();
    for (ArgSpec a : spec.args()) {
      if (a.group() != null) {
        continue;  // a group's options are required within it: the group's first option below
      }
      if (a.required() && a instanceof OptionSpec o) {
        out.addAll(List.of(o.longestName(), "x"));
      } else if (a.required()) {
        out.add("x");
      }
    }
    spec.argGroups().stream().filter(g -> g.multiplicity().min() > 0).forEach(g -> {
      OptionSpec first = g.options().get(0);
      out.add(first.longestName());
      if (first.arity().min() > 0) {
        out.add("x");
      }
    });
    return out;
  }

  /** The command line of {@code cl} with {@code more} after it. */
  private static String[] line(CommandLine cl, String... more) {
    List<String> words = new ArrayList<>();
    for (CommandLine c = cl; c.getParent() != null; c = c.getParent()) {
      words.add(0, c.getCommandName());
    }
    words.addAll(List.of(more));
    return words.toArray(String[]::new);
  }

  private static void assertOneLine(CommandLineTest.Run r, String[] line, String expected, CommandLine cl) {
    String what = "tidemark " + String.join(" ", line);
    assertThat(r.code()).as("%s: exit code; stderr %s", what, r.err()).isEqualTo(BAD_OPTION);
    assertThat(r.out()).as("%s: stdout", what).isEmpty();
    assertThat(r.err().lines().toList()).as("%s: stderr", what).singleElement().asString()
        .startsWith("tidemark: " + expected)
        .endsWith("(see " + cl.getCommandSpec().qualifiedName(" ") + " --help)");
  }
}
