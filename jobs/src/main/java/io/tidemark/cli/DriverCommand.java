package io.tidemark.cli;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.driver.CommandLogging;
import io.tidemark.driver.Driver;
import io.tidemark.driver.DriverAddress;
import io.tidemark.driver.DriverClient;
import io.tidemark.driver.ResidentJvm;
import io.tidemark.services.Endpoints;
import io.tidemark.services.ManagedProcess;
import io.tidemark.services.ServiceException;
import io.tidemark.services.Services;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "driver", mixinStandardHelpOptions = true,
    description = {"The resident driver: one JVM whose Spark session stays warm between commands.",
        "While it runs, the launcher hands it every command of this home that uses Spark (bootstrap, land, stream, "
            + "publish, check, restate, evolve, maintain, sql, report, log), which then starts in a fraction of a "
            + "second instead of a JVM's many; each runs with the caller's settings, output and exit code, its logs "
            + "in its own file. When it does not answer, the launcher says so in one line and runs the command itself."},
    subcommands = {DriverCommand.Start.class, DriverCommand.Stop.class, DriverCommand.Status.class,
        DriverCommand.Serve.class})
final class DriverCommand implements Runnable {
  static final int DEFAULT_SLOTS = 4;

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static ManagedProcess process(TidemarkConfig config) {
    return new ManagedProcess("driver", config.home().resolve("run"));
  }

  /** How the driver answers: its status line, or empty when it does not. */
  static Optional<String> ping(DriverAddress address) {
    try {
      return Optional.of(DriverClient.ping(address));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static void checkWarmUp(int arrivals) {
    if (arrivals < 0 || arrivals > io.tidemark.driver.WarmUp.MAX_ARRIVALS) {
      throw new io.tidemark.config.ConfigException("--warm-up: seed arrivals, 0 to "
          + io.tidemark.driver.WarmUp.MAX_ARRIVALS + ", not " + arrivals);
    }
  }

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = {"Start the resident driver of this home in the background, unless it runs already; waits until "
          + "it answers.",
          "It listens on <home>/run/driver.sock, readable by its owner only, and callers must know the key it writes "
              + "to <home>/run/driver.key. Its JVM gets TIDEMARK_JAVA_OPTS as every tidemark JVM does, by default "
              + "the JIT's first tier (TIDEMARK_JAVA_OPTS= for both, for large arrivals). Its log: "
              + "<home>/run/driver.log; its libraries' logs: <home>/logs/tidemark-driver-serve-*."})
  static final class Start implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--slots", paramLabel = "<n>", defaultValue = "" + DEFAULT_SLOTS,
        description = "Commands that run at once; more wait their turn (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--wait", paramLabel = "<seconds>", defaultValue = "300",
        description = "How long to wait for it to answer (default: ${DEFAULT-VALUE}), and 150 s more for each "
            + "arrival of its warm-up.")
    int waitSeconds;

    @Option(names = "--warm-up", paramLabel = "<arrivals>", defaultValue = "0",
        description = "Before it takes callers, run this many of the seed's arrivals (0-4) through it on a pipeline of "
            + "its own, removed after, so that the first callers' commands find it warm (default: ${DEFAULT-VALUE}, "
            + "none; the stacks start it with 4).")
    int warmUp;

    @Override
    public Integer call() throws IOException, URISyntaxException, InterruptedException {
      checkWarmUp(warmUp);
      TidemarkConfig config = Tidemark.root(spec).config();
      PrintWriter out = spec.commandLine().getOut();
      DriverAddress address = DriverAddress.ofHome(config.home());
      ManagedProcess p = process(config);
      Optional<String> answer = ping(address);
      // a driver whose process lives but does not answer may only be busy (a loaded machine): asked for a minute
      for (long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
           answer.isEmpty() && p.running().isPresent() && System.nanoTime() < until; answer = ping(address)) {
        Thread.sleep(1000);
      }
      if (answer.isPresent()) {
        out.println("driver: running already, " + answer.get());
        return 0;
      }
      p.stop(Duration.ofSeconds(30));  // one that no longer answers
      // the services first, in this process: a failure to start them is said here, as by any command
      new Services(config).ensureUp();
      Path jar = Path.of(Tidemark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path launcher = jar.resolveSibling("tidemark");
      if (!Files.isExecutable(launcher)) {
        throw new ServiceException("no launcher next to " + jar + ": the driver starts through " + launcher);
      }
      Map<String, String> env = new HashMap<>();
      env.put("TIDEMARK_HOME", config.home().toString());
      ProcessHandle h = p.start(List.of(launcher.toString(), "driver", "serve", "--slots", Integer.toString(slots),
          "--warm-up", Integer.toString(warmUp)), env, config.home());
      long deadline = System.nanoTime() + Duration.ofSeconds(waitSeconds + 150L * warmUp).toNanos();
      while (System.nanoTime() < deadline) {
        answer = ping(address);
        if (answer.isPresent()) {
          out.println("driver: " + answer.get());
          out.println("driver: log " + p.logFile());
          return 0;
        }
        if (!h.isAlive()) {
          throw new ServiceException("the resident driver exited while it started: " + p.logTail(5) + " (log "
              + p.logFile() + ")");
        }
        Thread.sleep(200);
      }
      p.stop(Duration.ofSeconds(10));
      throw new ServiceException("the resident driver did not answer within " + (waitSeconds + 150L * warmUp)
          + " s (log "
          + p.logFile() + "); stopped it");
    }
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop the resident driver of this home: commands running in it are cancelled (their Spark jobs "
          + "and streams stopped, as a kill would leave them); the launcher then runs commands in JVMs of their own.")
  static final class Stop implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      TidemarkConfig config = Tidemark.root(spec).config();
      ManagedProcess p = process(config);
      Optional<ProcessHandle> h = p.running();
      boolean stopped = p.stop(Duration.ofSeconds(60));
      // a killed driver leaves its socket: callers find it stale and say so; gone now
      DriverAddress left = DriverAddress.ofHome(config.home());
      try {
        left.removeFiles();
      } catch (IOException e) {
        throw new ServiceException("cannot remove " + left + "'s socket or key: " + e.getMessage(), e);
      }
      spec.commandLine().getOut().println(stopped
          ? "driver: stopped (pid " + h.map(ProcessHandle::pid).orElse(-1L) + ")" : "driver: not running");
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Whether the resident driver of this home (or of TIDEMARK_DRIVER_ADDRESS) answers, and what it "
          + "does; exit 3 when it does not.")
  static final class Status implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      TidemarkConfig config = Tidemark.root(spec).config();
      Map<String, String> env = Tidemark.root(spec).env();
      DriverAddress address = DriverAddress.of(env, config.home());
      Optional<String> answer = ping(address);
      PrintWriter out = spec.commandLine().getOut();
      if (answer.isPresent()) {
        out.println("driver: " + answer.get());
        return 0;
      }
      String where = address.socket().filter(Files::exists)
          .map(s -> " (" + s + " is left from a driver that did not stop: `tidemark driver start` replaces it)")
          .orElse("");
      out.println("driver: not running at " + address + where);
      return ErrorHandler.SERVICE_DOWN;
    }
  }

  @Command(name = "serve", mixinStandardHelpOptions = true,
      description = {"Run the resident driver in the foreground (what `start` runs; docker compose's `driver` "
          + "service runs it under spark-submit, on the cluster).",
          "Without --listen it listens on <home>/run/driver.sock with a new key in <home>/run/driver.key; with "
              + "--listen on a host and port, whose callers must know TIDEMARK_DRIVER_SECRET. Stops on SIGTERM."})
  static final class Serve implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "<address>",
        description = "Listen on host:port of the network (e.g. 0.0.0.0:7078 on the compose network), which requires "
            + "TIDEMARK_DRIVER_SECRET (default: the home's Unix socket).")
    String listen;

    @Option(names = "--slots", paramLabel = "<n>", defaultValue = "" + DEFAULT_SLOTS,
        description = "Commands that run at once; more wait their turn (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--await-services", paramLabel = "<seconds>", defaultValue = "0",
        description = "While Nessie or S3 does not answer, ask again for up to this long before giving up (docker "
            + "compose's driver waits, its services may be starting beside it; default: ${DEFAULT-VALUE}, "
            + "a one-line error at once).")
    int awaitServices;

    @Option(names = "--warm-up", paramLabel = "<arrivals>", defaultValue = "0",
        description = "Before it takes callers, run this many of the seed's arrivals (0-4) through it on a pipeline of "
            + "its own, removed after, so that the first callers' commands find it warm (default: ${DEFAULT-VALUE}, "
            + "none; the stacks start it with 4).")
    int warmUp;

    @Override
    public Integer call() throws IOException, InterruptedException {
      // before the first HTTP client and the SparkContext: what a JVM of one command lets go at its exit goes sooner
      ResidentJvm.prepare();
      Tidemark root = Tidemark.root(spec);
      // before anything logs: from now on each command's logs go to its own file
      if (!root.debug()) {
        CommandLogging.install(LogFile.active(), LogFile.simpleLogging());
      }
      TidemarkConfig config = root.config().writing();
      DriverAddress address;
      if (listen == null) {
        address = DriverAddress.ofHome(config.home());
      } else {
        String secret = root.env().get(DriverAddress.SECRET_ENV);
        if (secret == null || secret.isBlank()) {
          throw new io.tidemark.config.ConfigException(DriverAddress.SECRET_ENV
              + ": required to listen on the network (docker compose: set in .env by infra/compose/gen-env)");
        }
        address = DriverAddress.ofNetwork(listen, secret);
      }
      if (slots < 1) {
        throw new io.tidemark.config.ConfigException("--slots: at least 1, not " + slots);
      }
      checkWarmUp(warmUp);
      if (awaitServices < 0) {
        throw new io.tidemark.config.ConfigException("--await-services: seconds, 0 or more, not " + awaitServices);
      }
      PrintWriter out = spec.commandLine().getOut();
      Endpoints endpoints = new Services(config).awaitUp(Duration.ofSeconds(awaitServices), why -> {
        out.println("driver: waiting for the services: " + why);
        out.flush();
      });
      Driver driver = Driver.start(config, endpoints, address, slots, root.env(), warmUp, line -> {
        out.println(line);
        out.flush();
      });
      Runtime.getRuntime().addShutdownHook(new Thread(driver::close, "tidemark-driver-stop"));
      out.println("driver: " + driver.status());
      out.flush();
      driver.awaitStop();
      return 0;
    }
  }
}
