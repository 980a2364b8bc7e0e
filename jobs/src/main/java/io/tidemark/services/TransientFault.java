package io.tidemark.services;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.http.HttpTimeoutException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A failure of a call to a service that is likely to pass when the call is made again: the connection closed or reset
 * (a pooled connection the server had closed: "HTTP/1.1 header parser received no bytes", "EOF reached while
 * reading"), a timeout, an answer 502, 503 or 504 from a server or a proxy in front of it. What is not one of these (a
 * refused request, a conflict, a missing branch) is what the service said, and calling again would say it again.
 * The callers (the Nessie client tidemark and Iceberg use, the object store client) retry such a call with backoff
 * ({@link #pause}), after finding out whether a call that changes something took effect ({@code ResilientNessie}).
 */
public final class TransientFault {
  /** Calls made per request at most: the first and four more, over about 3 s of backoff. */
  public static final int ATTEMPTS = 5;
  private static final long FIRST_PAUSE_MS = 200;
  private static final Set<Integer> TRANSIENT_STATUS = Set.of(502, 503, 504);
  private static final Logger LOG = LoggerFactory.getLogger(TransientFault.class);
  private static final AtomicLong RETRIES = new AtomicLong();
  private static final AtomicLong RECONCILED = new AtomicLong();

  private TransientFault() {}

  /** Whether {@code failure}, or what caused it, is a transient fault. */
  public static boolean is(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (said(t)) {
        return false; // what the service answered, wrapped around the network error that carried an earlier try
      }
      if (network(t) || transientStatus(t)) {
        return true;
      }
    }
    return false;
  }

  /** An answer of the service itself (a conflict, a branch not found): never transient, whatever it wraps. */
  private static boolean said(Throwable t) {
    return t.getClass().getName().startsWith("org.projectnessie.error.") && !transientStatus(t);
  }

  private static boolean network(Throwable t) {
    String name = t.getClass().getName();
    if (name.equals("org.projectnessie.client.http.HttpClientException")
        || name.equals("org.projectnessie.client.http.HttpClientReadTimeoutException")) {
      return true; // the Nessie client's own wrapping of an I/O error
    }
    if (t instanceof EOFException || t instanceof SocketException || t instanceof HttpTimeoutException
        || t instanceof InterruptedIOException && !(t instanceof java.nio.channels.ClosedByInterruptException)) {
      return true;
    }
    String simple = t.getClass().getSimpleName();
    if (Set.of("NoHttpResponseException", "ConnectionClosedException", "ConnectTimeoutException",
        "HttpHostConnectException", "StreamResetException").contains(simple)) {
      return true; // Apache HttpClient (the AWS SDKs), OkHttp (the MinIO client)
    }
    if (t instanceof IOException && t.getMessage() != null) {
      String m = t.getMessage().toLowerCase(Locale.ROOT);
      return m.contains("header parser received no bytes") || m.contains("connection closed")
          || m.contains("connection reset") || m.contains("closed locally") || m.contains("unexpected end of stream")
          || m.contains("broken pipe") || m.contains("eof reached");
    }
    return false;
  }

  /** A 502, 503 or 504: whatever the client made of it (Nessie's exceptions, the MinIO client's error response). */
  private static boolean transientStatus(Throwable t) {
    String simple = t.getClass().getSimpleName();
    if (simple.equals("NessieUnavailableException") || simple.equals("NessieBackendThrottledException")) {
      return true;
    }
    Integer status = status(t);
    return status != null && TRANSIENT_STATUS.contains(status);
  }

  /** The HTTP status an exception carries, by whichever method its client names it; null when it has none. */
  private static Integer status(Throwable t) {
    for (String getter : new String[] {"getStatus", "statusCode", "code"}) {
      try {
        Object v = t.getClass().getMethod(getter).invoke(t);
        if (v instanceof Integer i) {
          return i;
        }
        if (v != null && v.getClass().getSimpleName().equals("Status")) {
          return (Integer) v.getClass().getMethod("getCode").invoke(v);
        }
      } catch (ReflectiveOperationException | ClassCastException e) {
        // not this client's way of saying it
      }
    }
    try {
      Object error = t.getClass().getMethod("getError").invoke(t);
      if (error != null) {
        return (Integer) error.getClass().getMethod("getStatus").invoke(error);
      }
    } catch (ReflectiveOperationException | ClassCastException e) {
      // no Nessie error in it
    }
    try {
      // the MinIO client: ErrorResponseException.response().code()
      Object response = t.getClass().getMethod("response").invoke(t);
      return response == null ? null : (Integer) response.getClass().getMethod("code").invoke(response);
    } catch (ReflectiveOperationException | ClassCastException e) {
      return null;
    }
  }

  /**
   * Waits before attempt {@code attempt} (2, 3, ...) of {@code what}, saying why in the log: 200 ms, 400 ms, 800 ms,
   * ... with jitter, so that the callers of a service that just restarted do not come back at once.
   */
  public static void pause(String what, int attempt, Throwable failure) {
    pause(what, attempt, ATTEMPTS, failure);
  }

  /** The same, for a caller that makes {@code attempts} attempts in all, not {@link #ATTEMPTS}: the log says which. */
  public static void pause(String what, int attempt, int attempts, Throwable failure) {
    long ms = FIRST_PAUSE_MS << Math.min(attempt - 2, 6);
    ms = ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1);
    RETRIES.incrementAndGet();
    LOG.warn("tidemark retries {} in {} ms (attempt {} of {}): {}", what, ms, attempt, attempts, describe(failure));
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting to retry " + what, e);
    }
  }

  /** Records that a call whose answer was lost had taken effect, which the caller found and did not make again. */
  public static void reconciled(String what, String found) {
    RECONCILED.incrementAndGet();
    LOG.warn("tidemark found {} done though its answer was lost: {}", what, found);
  }

  /** The calls retried in this JVM so far (for the fault-injection test's report). */
  public static long retries() {
    return RETRIES.get();
  }

  /** The calls whose answer was lost and that had taken effect, in this JVM so far. */
  public static long reconciledCalls() {
    return RECONCILED.get();
  }

  private static String describe(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage().lines()
        .findFirst().orElse(""));
  }
}
