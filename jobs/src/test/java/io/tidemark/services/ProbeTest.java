package io.tidemark.services;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.tidemark.testing.FaultProxy;
import io.tidemark.testing.FaultProxy.Fault;
import io.tidemark.testing.FaultProxy.Rule;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Probe#get}, which every command's and the resident driver's start ({@code driver start}, {@code driver
 * serve}) probe of the services is: a connection closed before an answer is asked again, beyond the JDK's HTTP
 * client's own retry of a GET; one closed every time is said, without the mark of a transient fault.
 */
class ProbeTest {
  private HttpServer service;

  @BeforeEach
  void serve() throws IOException {
    service = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    service.createContext("/", exchange -> {
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    service.start();
  }

  @AfterEach
  void stop() {
    service.stop(0);
  }

  @Test
  void aProbeClosedUnansweredIsAskedAgain() {
    for (Fault fault : new Fault[] {Fault.CLOSE_UNANSWERED, Fault.LOSE_ANSWER}) {
      try (FaultProxy proxy = new FaultProxy("probed", service.getAddress().getPort(), 0, 0, 1)) {
        // the JDK's client asks a GET again once itself: the second closed one is tidemark's to ask again
        proxy.rule(Rule.of("GET", "/config$", fault, 2));
        String[] why = {null};
        long retries = TransientFault.retries();

        int status = Probe.get(proxy.uri("/api/v2/config"), why);

        assertThat(status).as("%s twice, then answered (%s)", fault, proxy.stats()).isEqualTo(200);
        assertThat(TransientFault.retries() - retries).as("tidemark asked again").isPositive();
      }
    }
  }

  @Test
  void aProbeClosedEveryTimeIsSaidInOneReason() {
    try (FaultProxy proxy = new FaultProxy("probed", service.getAddress().getPort(), 0, 0, 1)) {
      proxy.rule(Rule.of("GET", "/config$", Fault.CLOSE_UNANSWERED, 1000));
      String[] why = {null};
      long retries = TransientFault.retries();
      long t0 = System.nanoTime();

      int status = Probe.get(proxy.uri("/api/v2/config"), why);

      assertThat(status).isEqualTo(-1);
      assertThat(why[0]).isEqualTo("HTTP/1.1 header parser received no bytes");
      assertThat(TransientFault.retries() - retries).as("three tries, the JDK's own retries in each").isEqualTo(2);
      assertThat((System.nanoTime() - t0) / 1_000_000_000.0).as("seconds").isLessThan(10);
    }
  }
}
