package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.Setting;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command line without services: options, help, configuration errors. */
class CommandLineTest {

  record Run(int code, String out, String err) {}

  static Run run(Map<String, String> env, String... args) {
    CommandLine cl = Tidemark.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void flagsOverrideTheEnvironmentAnywhereOnTheLine() {
    Map<String, String> env = Map.of("TIDEMARK_NESSIE_REF", "from-env", "TIDEMARK_SPARK_MASTER", "local[3]");
    Run before = run(env, "--nessie-ref", "before-cmd", "config");
    Run after = run(env, "config", "--nessie-ref", "after-cmd");
    assertThat(before.code()).isZero();
    assertThat(before.out()).containsPattern("TIDEMARK_NESSIE_REF\\s+before-cmd")
        .containsPattern("TIDEMARK_SPARK_MASTER\\s+local\\[3]");
    assertThat(after.out()).containsPattern("TIDEMARK_NESSIE_REF\\s+after-cmd");
  }

  @Test
  void badSettingIsOneLineAndExitCode2() {
    Run r = run(Map.of("TIDEMARK_NESSIE_PORT", "nineteen"), "config");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("tidemark: TIDEMARK_NESSIE_PORT (--nessie-port): expected a whole number "
        + "from 1 to 65535, got 'nineteen'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aDriverWarmUpBeyondTheSeedsArrivalsIsOneLineBeforeAnythingStarts() {
    for (String n : new String[] {"5", "-1"}) {
      Run r = run(Map.of("TIDEMARK_HOME", "/nonexistent/tidemark-home"), "driver", "start", "--warm-up", n);
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err().strip()).isEqualTo("tidemark: --warm-up: seed arrivals, 0 to 4, not " + n);
      assertThat(r.out()).isEmpty();
    }
  }

  @Test
  void secretsAreMaskedInConfig() {
    Run r = run(Map.of("TIDEMARK_S3_ENDPOINT", "http://minio:9000", "TIDEMARK_S3_ACCESS_KEY", "AKXYZ",
        "TIDEMARK_S3_SECRET_KEY", "topsecretvalue"), "config");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("http://minio:9000").doesNotContain("topsecretvalue").doesNotContain("AKXYZ");
  }

  @Test
  void configShowsADefaultAsTheEffectiveValueMarkedAsSuch() {
    Run r = run(Map.of("TIDEMARK_SPARK_MASTER", "local[3]"), "config");
    assertThat(r.code()).isZero();
    assertThat(r.out()).containsPattern("TIDEMARK_NESSIE_REF\\s+main \\(default\\)\\s")
        .containsPattern("TIDEMARK_SPARK_MASTER\\s+local\\[3]\\s+--spark-master")
        .containsPattern("TIDEMARK_NESSIE_URI\\s+\\(unset\\)\\s")
        .containsPattern("TIDEMARK_S3_SECRET_KEY\\s+\\(unset\\)\\s");
  }

  @Test
  void configShowsTheIcebergRestUriUnderTheNessieUri() {
    Run r = run(Map.of("TIDEMARK_NESSIE_PORT", "29120"), "config");
    assertThat(r.code()).isZero();
    assertThat(r.out()).containsPattern("TIDEMARK_NESSIE_URI .*\\R(?m)^TIDEMARK_ICEBERG_REST_URI\\s+"
        + "http://127\\.0\\.0\\.1:29120/iceberg/\\s");
  }

  @Test
  void everyCommandHasHelp() {
    for (String[] cmd : new String[][] {{"--help"}, {"services", "--help"}, {"services", "up", "--help"},
        {"services", "down", "--help"}, {"services", "status", "--help"}, {"bootstrap", "--help"},
        {"land", "--help"}, {"sql", "--help"}, {"demo", "--help"}, {"config", "--help"}, {"stream", "--help"},
        {"stream", "raw", "--help"}, {"stream", "dedup", "--help"}, {"stream", "windowed-counts", "--help"},
        {"stream", "scd2", "--help"}, {"stream", "all", "--help"}, {"bench", "--help"}, {"bench", "streams", "--help"},
        {"bench", "scd2", "--help"}}) {
      Run r = run(Map.of(), cmd);
      assertThat(r.code()).as(String.join(" ", cmd)).isZero();
      assertThat(r.out()).as(String.join(" ", cmd)).startsWith("Usage: tidemark");
    }
  }

  @Test
  void unknownOptionsAndMissingArgumentsAreUsageErrors() {
    assertThat(run(Map.of(), "land").code()).isEqualTo(2);
    assertThat(run(Map.of(), "land", "--scenario", "seed", "--from", "x").code()).as("exclusive").isEqualTo(2);
    assertThat(run(Map.of(), "sql", "--format", "xml", "SELECT 1").code()).isEqualTo(2);
    assertThat(run(Map.of(), "nope").code()).isEqualTo(2);
  }

  @Test
  void unknownScenarioIsOneLineAndABadOption() {
    Run r = run(Map.of(), "land", "--scenario", "nope", "--to-dir", "target/never");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("tidemark: --scenario nope: unknown; choose one of seed, seed-counts, "
        + "seed-dedup, seed-scd2, generated (see tidemark land --help)");
  }

  /** -V on any command prints the version, as on the root (it printed nothing). */
  @Test
  void theVersionOnEveryCommand() {
    for (String[] args : new String[][] {{"-V"}, {"stream", "all", "-V"}, {"restate", "audit", "--version"}}) {
      Run r = run(Map.of(), args);
      assertThat(r.code()).isZero();
      assertThat(r.out()).as(String.join(" ", args)).startsWith("tidemark ");
    }
  }

  /**
   * Help wraps at spaces only: every paragraph of every command's description, and every option's, reads whole in the
   * help with its line breaks taken for spaces (picocli's own wrapping broke `ns.` / `table@branch` and
   * `docs/troubleshooting.` / `md#...`, which cannot be copied).
   */
  @Test
  void helpBreaksLinesAtSpacesOnly() {
    for (picocli.CommandLine cl : HelpTextTest.everyCommand()) {
      String name = cl.getCommandSpec().qualifiedName(" ");
      String[] words = name.equals("tidemark") ? new String[] {"--help"}
          : (name.substring("tidemark ".length()) + " --help").split(" ");
      String help = run(Map.of(), words).out();
      for (String line : help.split("\n")) {
        assertThat(line.length()).as("%s: %s", name, line).isLessThanOrEqualTo(Help.WIDTH
            + (line.strip().contains(" ") ? 0 : line.length()));
      }
      String flat = help.replaceAll("\\s+", " ");
      for (String paragraph : cl.getCommandSpec().usageMessage().description()) {
        assertThat(flat).as("%s: a paragraph of its description, whole", name)
            .contains(paragraph.replace("%n", " ").replaceAll("\\s+", " ").strip());
      }
    }
  }

  @Test
  void csvQuoting() {
    assertThat(ResultPrinter.csvLine(new String[] {"a", "b,c", "say \"hi\"", null, "x\ny"}))
        .isEqualTo("a,\"b,c\",\"say \"\"hi\"\"\",,\"x\ny\"");
  }

  @Test
  void helpShowsTheCommandsOwnOptionsAndAnExampleAndTheSettingsOnce() {
    Run land = run(Map.of(), "land", "--help");
    assertThat(land.out()).contains("--scenario=<name>", "--arrival=<k>", "Example: tidemark land --scenario")
        .doesNotContain("--nessie-uri=<url>", "--table-events=<ns.table>", "TIDEMARK_S3_PORT");
    assertThat(land.out().indexOf("--scenario=<name>")).as("own options first").isLessThan(land.out().indexOf("      --debug"));

    for (String[] cmd : new String[][] {{"--help-all"}, {"land", "--help-all"}, {"stream", "all", "--help-all"}}) {
      Run all = run(Map.of(), cmd);
      assertThat(all.code()).as(String.join(" ", cmd)).isZero();
      for (Setting s : Setting.values()) {
        if (s.flag() != null) {
          assertThat(all.out()).as("%s lists %s", String.join(" ", cmd), s.flag())
              .containsOnlyOnce("  " + s.flag() + "=" + s.label()).contains(s.env());
        }
      }
    }
    assertThat(run(Map.of(), "land", "--help-all").out()).contains("--scenario=<name>");
    String all = run(Map.of(), "--help-all").out();
    assertThat(all.indexOf("--iceberg-rest-uri=<url>")).as("Nessie's Iceberg REST catalog with the services")
        .isGreaterThan(all.indexOf(" Services:")).isLessThan(all.indexOf(" Streams:"));
  }

  @Test
  void everyCommandHasAnExample() {
    List<CommandLine> todo = new ArrayList<>(List.of(Tidemark.commandLine(Map.of())));
    while (!todo.isEmpty()) {
      CommandLine cl = todo.remove(0);
      todo.addAll(cl.getSubcommands().values());
      StringWriter out = new StringWriter();
      cl.usage(new PrintWriter(out));
      assertThat(out.toString()).as(cl.getCommandSpec().qualifiedName(" ")).contains("Example: tidemark");
    }
  }
}
