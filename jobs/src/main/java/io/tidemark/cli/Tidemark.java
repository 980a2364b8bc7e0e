package io.tidemark.cli;

import io.tidemark.CrashHook;
import io.tidemark.CrashPoints;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.services.Services;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The {@code tidemark} command: every step of the pipeline, by hand or from Airflow. */
@Command(name = "tidemark",
    mixinStandardHelpOptions = true,
    versionProvider = Tidemark.Version.class,
    description = {
        "Event-time streaming on a lakehouse: Spark Structured Streaming into Iceberg tables on a Nessie catalog.",
        "",
        "Settings come from TIDEMARK_* environment variables (`tidemark config` shows them); each has a flag, on "
            + "every command, that overrides it (`--help-all` lists them). With no TIDEMARK_NESSIE_URI / "
            + "TIDEMARK_S3_ENDPOINT, embedded servers under --home are used and started when needed."},
    subcommands = {
        ServicesCommand.class,
        BootstrapCommand.class,
        LandCommand.class,
        StreamCommand.class,
        PublishCommand.class,
        EvolveCommand.class,
        RestateCommand.class,
        MaintainCommand.class,
        BenchCommand.class,
        SqlCommand.class,
        LogCommand.class,
        CheckCommand.class,
        ReportCommand.class,
        DemoCommand.class,
        PipelineCommand.class,
        DriverCommand.class,
        ConfigCommand.class,
        HelpCommand.class})
public final class Tidemark implements Runnable {
  @Spec
  CommandSpec spec;

  @CommandLine.Option(names = "--debug", scope = ScopeType.INHERIT,
      description = "Print stack traces of errors, and the libraries' logs here instead of to this run's "
          + "<home>/logs/tidemark-<command>-<time>-<pid>.log.")
  boolean debug;

  private final Map<String, String> env;
  private TidemarkConfig config;

  public Tidemark(Map<String, String> env) {
    this.env = env;
  }

  public static void main(String[] args) {
    CommandLine cl = commandLine(System.getenv());
    LogFile.route(cl, args);
    // a library's thread that dies as the JVM ends (a stream's, when the SparkContext stops after an error) goes to
    // the log file with the rest, not to the console under the command's one line
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> org.slf4j.LoggerFactory.getLogger(Tidemark.class)
        .warn("thread " + t.getName() + " ended with an error", e));
    int code;
    try {
      code = cl.execute(args);
    } catch (Throwable e) {
      code = ErrorHandler.fatal(e, cl.getErr());
    }
    System.exit(code);
  }

  /**
   * Runs a command for another process, as the resident driver does: {@code env} is that process's (its paths made
   * absolute, {@link CallerPaths}), the output goes to {@code out} and {@code err}, and the JVM never exits. The
   * caller of this binds the command's scope, which holds its log file and its Spark sessions.
   */
  public static int execute(Map<String, String> env, List<String> args, PrintWriter out, PrintWriter err) {
    CommandLine cl = commandLine(env);
    cl.setOut(out);
    cl.setErr(err);
    try {
      return cl.execute(args.toArray(String[]::new));
    } catch (Throwable e) {
      return ErrorHandler.fatal(e, err); // as main says what escapes a command: one line, the trace in its log
    }
  }

  /**
   * The file the libraries' logs of the command {@code args}, asked by the process {@code pid}, go to (its older files
   * pruned); none when the command line or a setting is bad, which the command then says itself.
   */
  public static Optional<Path> logFileFor(Map<String, String> env, List<String> args, long pid) {
    return LogFile.fileFor(commandLine(env), args.toArray(String[]::new), pid);
  }

  /**
   * The Spark settings the command {@code args} would run with (its catalog's, the SparkContext's), without starting
   * anything; none when its command line or settings are bad.
   */
  public static Optional<Map<String, String>> sparkSettings(Map<String, String> env, List<String> args) {
    try {
      CommandLine cl = commandLine(env);
      cl.parseArgs(args.toArray(String[]::new));
      TidemarkConfig config = ((Tidemark) cl.getCommand()).config();
      return Optional.of(SparkSessions.conf(config, new Services(config).endpoints()));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The command line, with one global option per {@link Setting} (inherited by every subcommand, in help once). */
  public static CommandLine commandLine(Map<String, String> env) {
    CommandLine cl = new CommandLine(new Tidemark(env));
    for (Setting s : Setting.values()) {
      if (s.flag() != null) {
        cl.getCommandSpec().addOption(OptionSpec.builder(s.flag())
            .paramLabel(s.label())
            .type(String.class)
            .scopeType(ScopeType.INHERIT)
            // listed once, grouped, by --help-all: in every command's help they drowned its own options
            .hidden(true)
            .description(s.description() + " Env: " + s.env() + ".")
            .build());
      }
    }
    cl.getCommandSpec().addOption(OptionSpec.builder(Help.HELP_ALL)
        .usageHelp(true)
        .scopeType(ScopeType.INHERIT)
        .description("Show this help and the settings every command takes.")
        .build());
    Help.decorate(cl);
    cl.setExecutionStrategy(pr -> Help.all(pr) ? 0 : new CommandLine.RunLast().execute(pr));
    cl.setExecutionExceptionHandler(new ErrorHandler());
    cl.setParameterExceptionHandler(new UsageErrors());
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    return cl;
  }

  /** The configuration: the environment, overridden by the flags given anywhere on the command line. */
  TidemarkConfig config() {
    if (config == null) {
      config = TidemarkConfig.of(env, overrides());
    }
    return config;
  }

  /** The home alone, reading no other setting and no pipeline file ({@link TidemarkConfig#homeOf}). */
  java.nio.file.Path home() {
    return config != null ? config.home() : TidemarkConfig.homeOf(env, overrides());
  }

  /** The settings given as flags of the parsed command line. */
  private Map<Setting, String> overrides() {
    Map<Setting, String> overrides = new EnumMap<>(Setting.class);
    for (ParseResult pr = spec.commandLine().getParseResult(); pr != null; pr = pr.subcommand()) {
      for (Setting s : Setting.values()) {
        if (s.flag() != null && pr.hasMatchedOption(s.flag())) {
          overrides.put(s, pr.matchedOptionValue(s.flag(), (String) null));
        }
      }
    }
    return overrides;
  }

  boolean debug() {
    return debug;
  }

  /** The environment the settings come from. */
  Map<String, String> env() {
    return env;
  }

  /**
   * Where the jobs this command starts may be halted: nowhere, unless the crash tests ask through the environment
   * ({@link CrashHook}).
   */
  CrashPoints crashPoints() {
    return CrashHook.of(env);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The root command object of any subcommand. */
  static Tidemark root(CommandSpec sub) {
    return (Tidemark) sub.root().userObject();
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Tidemark.class.getPackage().getImplementationVersion();
      return new String[] {"tidemark " + (v == null ? "(development build)" : v)};
    }
  }
}
