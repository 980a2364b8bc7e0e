package io.tidemark.services;

import io.tidemark.TidemarkException;
import io.tidemark.config.TidemarkConfig;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A failure that is a service gone away mid-run (the S3 server or Nessie stopped answering), named as a person
 * would say it: which server, at which address, and what the network said. A library's own report of this
 * (Spark's task failure around the AWS SDK's retries around a refused connection) names none of it.
 */
public final class Outage {
  /** Network failures from clients we carry but do not compile against (Apache HttpClient 4/5). */
  private static final Set<String> NETWORK_CLASSES = Set.of("NoHttpResponseException", "ConnectTimeoutException",
      "HttpHostConnectException", "ConnectionClosedException");

  private Outage() {}

  /**
   * "cannot reach the S3 server at http://127.0.0.1:19000 (Connection refused)", or empty when the failure is
   * not a network failure or the service cannot be told.
   */
  public static Optional<String> describe(Throwable failure, TidemarkConfig config) {
    Throwable network = null;
    for (Throwable t = failure; t != null && t != t.getCause(); t = t.getCause()) {
      if (isNetwork(t)) {
        network = t;  // the deepest one says it plainest ("Connection refused")
      }
    }
    if (network == null) {
      return Optional.empty();
    }
    Map<String, URI> services = new LinkedHashMap<>();
    services.put("the S3 server", config.s3Endpoint().orElseGet(() -> new S3Server(config).endpoint()));
    services.put("the Nessie server", config.nessieUri().orElseGet(() -> NessieServer.apiUri(config)));
    String reason = TidemarkException.firstLine(network);
    // the client's messages name the address it tried ("Connect to 127.0.0.1:19000 ... failed")
    for (Map.Entry<String, URI> s : services.entrySet()) {
      String address = s.getValue().getHost() + ":" + port(s.getValue());
      for (Throwable t = failure; t != null && t != t.getCause(); t = t.getCause()) {
        if (t.getMessage() != null && t.getMessage().contains(address)) {
          return Optional.of(line(s, reason));
        }
      }
    }
    // otherwise the one that does not answer now is the one that went away
    Map.Entry<String, URI> down = null;
    for (Map.Entry<String, URI> s : services.entrySet()) {
      if (!answers(s.getValue())) {
        if (down != null) {
          return Optional.of("cannot reach " + down.getKey() + " at " + down.getValue() + " nor " + s.getKey()
              + " at " + s.getValue() + " (" + reason + ")");
        }
        down = s;
      }
    }
    return down == null ? Optional.empty() : Optional.of(line(down, reason));
  }

  private static String line(Map.Entry<String, URI> service, String reason) {
    // "Connect to http://127.0.0.1:19000 failed: Connection refused" says the address twice
    String why = reason.contains(service.getValue().getHost()) && reason.contains(": ")
        ? reason.substring(reason.lastIndexOf(": ") + 2) : reason;
    return "cannot reach " + service.getKey() + " at " + service.getValue() + " (" + why + ")";
  }

  private static boolean isNetwork(Throwable t) {
    return t instanceof SocketException || t instanceof SocketTimeoutException || t instanceof UnknownHostException
        || t instanceof HttpConnectTimeoutException || NETWORK_CLASSES.contains(t.getClass().getSimpleName());
  }

  private static int port(URI uri) {
    return uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
  }

  private static boolean answers(URI uri) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(uri.getHost(), port(uri)), 1000);
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
