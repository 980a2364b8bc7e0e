package io.tidemark.cli;

import io.tidemark.config.Setting;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "config", mixinStandardHelpOptions = true,
    description = "Print every setting with its effective value (secrets masked) and what it is for.")
final class ConfigCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Tidemark.root(spec).config().describe().forEach((s, v) -> out.printf("%-34s %-40s %s%n", s.env(),
        v == null ? "(unset)" : v, describe(s)));
    return 0;
  }

  private static String describe(Setting s) {
    return s.flag() == null ? s.description() : s.flag() + "  " + s.description();
  }
}
