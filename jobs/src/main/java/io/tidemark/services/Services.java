package io.tidemark.services;

import io.tidemark.config.Secret;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The catalog and storage services: the external ones when configured, otherwise the embedded Nessie and S3
 * servers, started on demand and left running. Starting and stopping hold a lock in the data directory, so two
 * callers never start a second pair.
 */
public final class Services {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration AWAIT_PAUSE = Duration.ofSeconds(2);

  private final TidemarkConfig config;
  private final NessieServer nessie;
  private final S3Server s3;

  public Services(TidemarkConfig config) {
    this.config = config;
    this.s3 = new S3Server(config);
    this.nessie = new NessieServer(config, this::endpoints);
  }

  /** One line per service, for {@code services status}. */
  public record Status(String name, String state, String address, String detail) {}

  /**
   * Makes sure the services are up and returns where they are: external ones are probed (a one-line error
   * within seconds when one does not answer), embedded ones are started unless already running.
   */
  public Endpoints ensureUp() {
    List<EmbeddedServer> embedded = embedded();
    if (!embedded.isEmpty()) {
      locked(() -> {
        List<EmbeddedServer> toStart = embedded.stream().filter(s -> s.running().isEmpty()).toList();
        toStart.forEach(EmbeddedServer::checkPortsFree);
        List<EmbeddedServer> started = new ArrayList<>();
        try {
          // start all before waiting on any: Nessie takes seconds, s3proxy less
          for (EmbeddedServer s : toStart) {
            s.start();
            started.add(s);
          }
          embedded.forEach(s -> s.awaitHealthy(START_TIMEOUT));
        } catch (RuntimeException e) {
          // a half-started pair is worse than none: the next call starts both cleanly
          started.forEach(EmbeddedServer::stop);
          throw e;
        }
        return null;
      });
    }
    config.nessieUri().ifPresent(uri ->
        Probe.requireOk("Nessie", uri.resolve(withSlash(uri) + "config"), Setting.NESSIE_URI.display()));
    config.s3Endpoint().ifPresent(uri -> {
      String[] why = {null};
      if (Probe.get(uri, why) < 0) {
        throw new ServiceException("cannot reach S3 at " + uri + " (" + why[0] + "); check "
            + Setting.S3_ENDPOINT.display());
      }
    });
    return endpoints();
  }

  /**
   * {@link #ensureUp()}, asked again every few seconds while the services do not answer, up to {@code patience}:
   * for a process started beside them (docker compose starts the driver as soon as Nessie's health check passes,
   * which can be a moment before its API answers). Each new reason is told once to {@code waiting}; after
   * {@code patience} the last error is thrown as {@link #ensureUp()} throws it.
   */
  public Endpoints awaitUp(Duration patience, java.util.function.Consumer<String> waiting) {
    long deadline = System.nanoTime() + patience.toNanos();
    String told = null;
    while (true) {
      try {
        return ensureUp();
      } catch (ServiceException e) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw e;
        }
        if (!e.getMessage().equals(told)) {
          told = e.getMessage();
          waiting.accept(told + "; asking again for up to " + Duration.ofNanos(left).toSeconds() + " s");
        }
        try {
          Thread.sleep(Math.min(AWAIT_PAUSE.toMillis(), Duration.ofNanos(left).toMillis() + 1));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Where the services are, without starting anything. */
  public Endpoints endpoints() {
    Secret[] keys = config.s3Endpoint().isPresent()
        ? new Secret[] {config.s3AccessKey().orElseThrow(), config.s3SecretKey().orElseThrow()}
        : s3.credentials();
    return new Endpoints(config.nessieUri().orElse(nessie.apiUri()),
        config.s3Endpoint().orElse(s3.endpoint()), keys[0], keys[1]);
  }

  /** Stops the embedded servers that tidemark started; names of those it stopped. */
  public List<String> down() {
    return locked(() -> {
      List<String> stopped = new ArrayList<>();
      for (EmbeddedServer s : List.of(nessie, s3)) {
        if (s.stop()) {
          stopped.add(s.name());
        }
      }
      return stopped;
    });
  }

  public List<Status> status() {
    List<Status> out = new ArrayList<>();
    out.add(config.nessieUri()
        .map(uri -> external("nessie", uri.toString(), uri.resolve(withSlash(uri) + "config")))
        .orElseGet(() -> embeddedStatus(nessie)));
    out.add(config.s3Endpoint()
        .map(uri -> external("s3", uri.toString(), uri))
        .orElseGet(() -> embeddedStatus(s3)));
    return out;
  }

  /** Where the generated S3 credentials of the embedded server are kept. */
  public Path s3CredentialsFile() {
    return s3.credentialsFile();
  }

  /** S3 first: starting it generates the credentials that Nessie is then given. */
  private List<EmbeddedServer> embedded() {
    List<EmbeddedServer> list = new ArrayList<>();
    if (config.s3Endpoint().isEmpty()) {
      list.add(s3);
    }
    if (config.nessieUri().isEmpty()) {
      list.add(nessie);
    }
    return list;
  }

  private static Status external(String name, String address, java.net.URI probe) {
    String[] why = {null};
    int code = Probe.get(probe, why);
    return new Status(name, code > 0 ? "reachable" : "unreachable", address,
        code > 0 ? "external, HTTP " + code : "external, " + why[0]);
  }

  private static Status embeddedStatus(EmbeddedServer s) {
    return s.running()
        .map(h -> new Status(s.name(), s.healthy() ? "running" : "starting or unhealthy", s.address(),
            "pid " + h.pid() + ", log " + s.logFile()))
        .orElseGet(() -> new Status(s.name(), "stopped", s.address(), "embedded"));
  }

  private static String withSlash(java.net.URI uri) {
    String path = uri.getPath() == null ? "" : uri.getPath();
    return path.endsWith("/") ? path : path + "/";
  }

  private <T> T locked(Supplier<T> action) {
    Path lockFile = config.home().resolve("run/services.lock");
    try {
      Files.createDirectories(lockFile.getParent());
      try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
           FileLock ignored = ch.lock()) {
        return action.get();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + lockFile, e);
    }
  }
}
