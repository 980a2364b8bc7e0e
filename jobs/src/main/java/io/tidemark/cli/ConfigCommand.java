package io.tidemark.cli;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
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
    TidemarkConfig config = Tidemark.root(spec).config();
    config.describe().forEach((s, v) -> out.printf("%-34s %-44s %s%n", s.env(), value(config, s, v), describe(s)));
    return 0;
  }

  /** The effective value: as given, else the default (or what it is derived from the others), marked as such. */
  private static String value(TidemarkConfig config, Setting s, String given) {
    String v = given != null ? given : s.defaultValue();
    if (v == null) {
      return "(unset)";
    }
    return config.isSet(s) ? v : v + " (default)";
  }

  private static String describe(Setting s) {
    return s.flag() == null ? s.description() : s.flag() + "  " + s.description();
  }
}
