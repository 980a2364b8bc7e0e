package io.tidemark.cli;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.services.Services;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(name = "services", mixinStandardHelpOptions = true,
    description = "Start, stop or show the catalog (Nessie) and storage (S3) services.",
    subcommands = {ServicesCommand.Up.class, ServicesCommand.Down.class, ServicesCommand.Status.class})
final class ServicesCommand implements Runnable {
  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  static void print(PrintWriter out, List<Services.Status> statuses) {
    for (Services.Status s : statuses) {
      out.printf("%-7s %-12s %s%n        %s%n", s.name(), s.state(), s.address(), s.detail());
    }
  }

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = {"Start the embedded Nessie and S3 servers unless they run already, and leave them running.",
          "Waits until they are healthy. External services (TIDEMARK_NESSIE_URI, TIDEMARK_S3_ENDPOINT) are only "
              + "checked."})
  static final class Up implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      TidemarkConfig config = Tidemark.root(spec).config();
      Services services = new Services(config);
      long t0 = System.nanoTime();
      services.ensureUp();
      PrintWriter out = spec.commandLine().getOut();
      print(out, services.status());
      if (config.s3Endpoint().isEmpty()) {
        out.println("S3 credentials (generated, owner-readable only): " + services.s3CredentialsFile());
      }
      out.printf("up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
      return 0;
    }
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Stop the embedded servers that tidemark started (by their pid files); data is kept.")
  static final class Down implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      List<String> stopped = new Services(Tidemark.root(spec).config()).down();
      spec.commandLine().getOut().println(stopped.isEmpty() ? "nothing was running" : "stopped: "
          + String.join(", ", stopped));
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Show each service; exit code 0 when all run (or answer), 3 otherwise.")
  static final class Status implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
      List<Services.Status> statuses = new Services(Tidemark.root(spec).config()).status();
      print(spec.commandLine().getOut(), statuses);
      boolean allUp = statuses.stream().allMatch(s -> s.state().equals("running") || s.state().equals("reachable"));
      return allUp ? 0 : ErrorHandler.SERVICE_DOWN;
    }
  }
}
