package io.tidemark.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Services#awaitUp}: a process started beside its services (compose's driver) waits for them, bounded, rather
 * than exit at the first refused probe; with no patience it says the one line at once.
 */
class ServicesAwaitTest {
  @TempDir
  Path home;

  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private final AtomicReference<HttpServer> nessie = new AtomicReference<>();
  private HttpServer s3;

  @AfterEach
  void stop() {
    later.shutdownNow();
    if (nessie.get() != null) {
      nessie.get().stop(0);
    }
    if (s3 != null) {
      s3.stop(0);
    }
  }

  private static HttpServer answering(int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    server.createContext("/", exchange -> {
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    return server;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private Services services(int nessiePort) throws IOException {
    s3 = answering(0);
    return new Services(TidemarkConfig.of(Map.of(
        "TIDEMARK_HOME", home.toString(),
        "TIDEMARK_NESSIE_URI", "http://127.0.0.1:" + nessiePort + "/api/v2",
        "TIDEMARK_S3_ENDPOINT", "http://127.0.0.1:" + s3.getAddress().getPort(),
        "TIDEMARK_S3_ACCESS_KEY", "test-access",
        "TIDEMARK_S3_SECRET_KEY", "test-secret"), Map.of()));
  }

  @Test
  void waitsForNessieThatStartsAnsweringLater() throws Exception {
    int port = freePort();
    Services services = services(port);
    later.schedule(() -> {
      nessie.set(answering(port));
      return null;
    }, 3, TimeUnit.SECONDS);
    List<String> told = new CopyOnWriteArrayList<>();

    Endpoints endpoints = services.awaitUp(Duration.ofSeconds(60), told::add);

    assertThat(endpoints.nessieApi().toString()).isEqualTo("http://127.0.0.1:" + port + "/api/v2");
    assertThat(nessie.get()).as("answered only once Nessie listened").isNotNull();
    assertThat(told).as("each reason once, however often it was asked").hasSize(1);
    assertThat(told.get(0)).startsWith("cannot reach Nessie at http://127.0.0.1:" + port + "/api/v2/config "
        + "(connection refused); check TIDEMARK_NESSIE_URI").contains("; asking again for up to ");
  }

  @Test
  void withoutPatienceTheOneLineComesAtOnce() throws Exception {
    int port = freePort();
    Services services = services(port);
    List<String> told = new CopyOnWriteArrayList<>();
    long t0 = System.nanoTime();

    assertThatThrownBy(() -> services.awaitUp(Duration.ZERO, told::add))
        .isInstanceOf(ServiceException.class)
        .hasMessageStartingWith("cannot reach Nessie at http://127.0.0.1:" + port + "/api/v2/config");
    assertThat(told).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void givesUpAfterItsPatienceWithTheLastError() throws Exception {
    int port = freePort();
    Services services = services(port);
    List<String> told = new CopyOnWriteArrayList<>();

    assertThatThrownBy(() -> services.awaitUp(Duration.ofSeconds(3), told::add))
        .isInstanceOf(ServiceException.class)
        .hasMessageContaining("(connection refused); check TIDEMARK_NESSIE_URI");
    assertThat(told).hasSize(1);
  }
}
