package io.tidemark.services;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A server that tidemark runs itself when no external endpoint is configured: start, health, stop. */
abstract class EmbeddedServer {
  private static final Duration POLL = Duration.ofMillis(250);

  protected final ManagedProcess process;

  EmbeddedServer(String name, Path runDir) {
    this.process = new ManagedProcess(name, runDir);
  }

  String name() {
    return process.name();
  }

  /** The ports the server binds, each with the setting that moves it. */
  abstract Map<Integer, String> ports();

  /** The command line; may prepare files (directories, configuration) first. */
  abstract List<String> command() throws IOException;

  abstract Path workDir();

  /** Variables added to the server's environment: where its secrets go. Called after {@link #command()}. */
  Map<String, String> environment() {
    return Map.of();
  }

  /** A URL that answers 2xx once the server is ready. */
  abstract URI healthUri();

  /** Where a person looks: the API or UI address. */
  abstract String address();

  Optional<ProcessHandle> running() {
    return process.running();
  }

  boolean healthy() {
    int status = Probe.get(healthUri(), new String[1]);
    return status >= 200 && status < 300;
  }

  /** Fails with a one-line message when a port it needs is taken by something else. */
  void checkPortsFree() {
    ports().forEach((port, setting) -> {
      if (Probe.listening(port)) {
        throw new ServiceException(name() + ": port " + port + " on 127.0.0.1 is busy (not a server tidemark "
            + "started); stop what listens there or set " + setting);
      }
    });
  }

  void start() {
    try {
      List<String> command = command();
      process.start(command, environment(), workDir());
    } catch (IOException e) {
      throw new ServiceException(name() + ": cannot start (" + e.getMessage() + ")", e);
    }
  }

  /** Waits until the server answers; stops it and explains where to look when it does not in time. */
  void awaitHealthy(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!healthy()) {
      if (running().isEmpty()) {
        throw new ServiceException(name() + " exited during start; see " + process.logFile() + ": "
            + process.logTail(3));
      }
      if (System.nanoTime() > deadline) {
        process.stop(Duration.ofSeconds(10));
        throw new ServiceException(name() + " not healthy at " + healthUri() + " after " + timeout.toSeconds()
            + " s; stopped it; see " + process.logFile());
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceException(name() + ": interrupted while waiting for it to start");
      }
    }
  }

  boolean stop() {
    return process.stop(Duration.ofSeconds(20));
  }

  Path logFile() {
    return process.logFile();
  }

  /** The jar of a server, copied next to tidemark.jar by the Maven build. */
  static Path serverJar(String fileName) {
    Path jar = servicesDir().resolve(fileName);
    if (!Files.isRegularFile(jar)) {
      throw new ServiceException("missing " + jar + "; build it with: mvn -q package -DskipTests");
    }
    return jar;
  }

  /**
   * {@code target/services} of the jobs module: the directory next to tidemark.jar or to target/classes, or
   * the {@code tidemark.services.dir} system property.
   */
  static Path servicesDir() {
    String configured = System.getProperty("tidemark.services.dir");
    if (configured != null) {
      return Path.of(configured);
    }
    try {
      Path codeSource = Path.of(EmbeddedServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return codeSource.getParent().resolve("services");
    } catch (URISyntaxException | RuntimeException e) {
      return Path.of("jobs/target/services");
    }
  }

  static URI uri(String text) {
    return URI.create(text);
  }
}
