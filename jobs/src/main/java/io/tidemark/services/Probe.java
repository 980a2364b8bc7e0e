package io.tidemark.services;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** Quick network checks with short timeouts, so that an unreachable service is reported within seconds. */
public final class Probe {
  private static final Duration CONNECT = Duration.ofSeconds(3);
  /** Fewer than a command's other calls: a probe that fails says so within seconds. */
  private static final int ATTEMPTS = 3;
  private static final Duration READ = Duration.ofSeconds(5);
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(CONNECT)
      .followRedirects(HttpClient.Redirect.NEVER)
      .build();

  private Probe() {}

  /**
   * The HTTP status of a GET, or -1 with the reason in {@code why[0]} when nothing answered. A transient fault (the
   * connection closed before an answer, a 502/503/504) is asked again twice; a refused connection or a timeout is said
   * at once: nothing listens there.
   */
  public static int get(URI uri, String[] why) {
    for (int attempt = 1; ; attempt++) {
      int status = getOnce(uri, why);
      boolean fault = status < 0 ? why[0] != null && why[0].startsWith(FAULT) : TRANSIENT.contains(status);
      if (!fault || attempt >= ATTEMPTS) {
        if (status < 0 && why[0].startsWith(FAULT)) {
          why[0] = why[0].substring(FAULT.length());
        }
        return status;
      }
      String reason = status < 0 ? why[0].substring(FAULT.length()) : "HTTP " + status;
      TransientFault.pause("the probe of " + uri, attempt + 1, ATTEMPTS, new IOException(reason));
    }
  }

  private static final String FAULT = "transient: ";
  private static final java.util.Set<Integer> TRANSIENT = java.util.Set.of(502, 503, 504);

  private static int getOnce(URI uri, String[] why) {
    try {
      HttpRequest req = HttpRequest.newBuilder(uri).timeout(READ).GET().build();
      return HTTP.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (HttpConnectTimeoutException e) {
      why[0] = "connect timed out after " + CONNECT.toSeconds() + " s";
    } catch (HttpTimeoutException e) {
      why[0] = "no answer within " + READ.toSeconds() + " s";
    } catch (ConnectException e) {
      why[0] = "connection refused";
    } catch (IOException | IllegalArgumentException e) {
      why[0] = (TransientFault.is(e) ? FAULT : "") + (e.getMessage() == null ? e.getClass().getSimpleName()
          : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      why[0] = "interrupted";
    }
    return -1;
  }

  /** Throws a one-line error naming the URL and the setting to fix when nothing answers with a 2xx there. */
  public static void requireOk(String service, URI uri, String setting) {
    String[] why = {null};
    int status = get(uri, why);
    if (status < 200 || status > 299) {
      String reason = status < 0 ? why[0] : "HTTP " + status;
      throw new ServiceException("cannot reach " + service + " at " + uri + " (" + reason + "); check " + setting);
    }
  }

  /** Whether something listens on the local port. */
  static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
