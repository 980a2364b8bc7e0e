package io.tidemark.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A loopback HTTP/1.1 proxy in front of a service (Nessie, the S3 server) that fails some requests on purpose, the way
 * a network, a load balancer or a restarting server does: it closes a client's connection without forwarding its
 * request (the request never reached the service), or forwards it and closes the connection instead of passing the
 * answer on (the service did the work; the client does not know). At random rates ({@code close}, {@code lose}, drawn
 * from one seeded generator), and by rule: the first n requests whose method and path match. It reads each request and
 * answer whole (Content-Length, chunked, to the end of a closed connection), answers {@code Expect: 100-continue}
 * itself, and keeps connections alive as the client does. It counts what it saw and did.
 *
 * <p>Run as a program too (the Airflow test puts it in front of the native stack's services):
 * {@code java -cp jobs/target/test-classes io.tidemark.testing.FaultProxy <listen port> <target port> <close rate>
 * <lose rate> <seed> <stats file>}: it writes its counts to the stats file every second and on SIGTERM.
 */
public final class FaultProxy implements Closeable {
  /** What the proxy does to a request. */
  public enum Fault {
    /** The connection is closed before the request is forwarded: it never reaches the service. */
    CLOSE_UNANSWERED,
    /** The request is forwarded and answered; the connection is closed instead of the answer passed on. */
    LOSE_ANSWER,
    /** The request is not forwarded; the proxy answers 503, as a load balancer does while the service restarts. */
    ANSWER_503
  }

  /**
   * The first {@code times} requests of {@code method} whose path matches {@code path} and whose body {@code body}
   * accepts get {@code fault}.
   */
  public record Rule(String method, Pattern path, java.util.function.Predicate<String> body, Fault fault,
                     AtomicLong times) {
    public static Rule of(String method, String pathRegex, Fault fault, int times) {
      return new Rule(method, Pattern.compile(pathRegex), b -> true, fault, new AtomicLong(times));
    }

    /** The same, only for requests whose body (as text) {@code body} accepts. */
    public Rule whereBody(java.util.function.Predicate<String> body) {
      return new Rule(method, path, body, fault, times);
    }
  }

  /**
   * What the proxy saw and did, and to which requests ("POST /api/v2/trees/main/history/commit" each); a request
   * answered 503 counts as closed unanswered (it never reached the service).
   */
  public record Stats(long requests, long closedUnanswered, long answersLost, List<String> faulted) {
    public long faults() {
      return closedUnanswered + answersLost;
    }

    @Override
    public String toString() {
      return requests + " requests, " + closedUnanswered + " closed unanswered, " + answersLost + " answers lost";
    }
  }

  private static final Set<String> HOP_BY_HOP = Set.of("expect", "upgrade", "http2-settings");

  private final String name;
  private final int target;
  private final double close;
  private final double lose;
  private final Random random;
  private final ServerSocket server;
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong closed = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private final List<String> faulted = new CopyOnWriteArrayList<>();
  private volatile boolean running = true;

  /** A proxy on a free loopback port in front of {@code 127.0.0.1:target}. */
  public FaultProxy(String name, int target, double close, double lose, long seed) {
    this(name, 0, target, close, lose, seed);
  }

  public FaultProxy(String name, int port, int target, double close, double lose, long seed) {
    this.name = name;
    this.target = target;
    this.close = close;
    this.lose = lose;
    this.random = new Random(seed);
    try {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
    } catch (IOException e) {
      throw new IllegalStateException("the fault proxy " + name + " cannot listen on " + port, e);
    }
    Thread accept = new Thread(this::accept, "fault-proxy-" + name);
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** {@code http://127.0.0.1:<port><path>}: the service's address through the proxy. */
  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  /** Adds a rule, applied before the random rates. */
  public FaultProxy rule(Rule r) {
    rules.add(r);
    return this;
  }

  public Stats stats() {
    return new Stats(requests.get(), closed.get(), lost.get(), List.copyOf(faulted));
  }

  @Override
  public void close() {
    running = false;
    try {
      server.close();
    } catch (IOException e) {
      // closing: nothing more to do
    }
    open.forEach(FaultProxy::quietly);
  }

  private void accept() {
    while (running) {
      try {
        Socket client = server.accept();
        open.add(client);
        Thread t = new Thread(() -> serve(client), "fault-proxy-" + name + "-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (running) {
          System.err.println("fault proxy " + name + ": " + e);
        }
      }
    }
  }

  private void serve(Socket client) {
    Socket upstream = null;
    try {
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      while (running) {
        Message request = readRequest(in, out);
        if (request == null) {
          return; // the client closed its connection
        }
        requests.incrementAndGet();
        Fault fault = decide(request);
        if (fault == Fault.CLOSE_UNANSWERED) {
          closed.incrementAndGet();
          faulted.add(request.method + " " + request.path + " closed unanswered");
          return;
        }
        if (fault == Fault.ANSWER_503) {
          closed.incrementAndGet();
          faulted.add(request.method + " " + request.path + " answered 503");
          out.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          return;
        }
        Message answer = null;
        for (int attempt = 0; answer == null && attempt < 2; attempt++) {
          boolean reused = upstream != null;
          if (upstream == null) {
            upstream = connect();
          }
          boolean sent = false;
          try {
            upstream.getOutputStream().write(request.bytes);
            upstream.getOutputStream().flush();
            sent = true;
          } catch (IOException e) {
            if (!reused) {
              throw e;
            }
          }
          if (sent) {
            // null: the service closed the connection before a byte of its answer (an idle one it had closed)
            answer = readAnswer(upstream.getInputStream(), request.method);
          }
          if (answer == null) {
            // the service closed an idle connection of ours: a fault of the proxy's own, not one to inject
            quietly(upstream);
            upstream = null;
            if (!reused) {
              return;
            }
          }
        }
        if (answer == null) {
          return;
        }
        if (fault == Fault.LOSE_ANSWER) {
          lost.incrementAndGet();
          faulted.add(request.method + " " + request.path + " answered " + answer.status + ", answer lost");
          return;
        }
        out.write(answer.bytes);
        out.flush();
        if (request.closes || answer.closes) {
          return;
        }
      }
    } catch (IOException e) {
      // a client or the service went away mid-request: its connection ends, as it would without the proxy
    } finally {
      quietly(client);
      if (upstream != null) {
        quietly(upstream);
      }
    }
  }

  private Socket connect() throws IOException {
    Socket upstream = new Socket();
    upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5000);
    upstream.setSoTimeout(300_000);
    open.add(upstream);
    return upstream;
  }

  private Fault decide(Message request) {
    for (Rule r : rules) {
      if (r.method().equalsIgnoreCase(request.method) && r.path().matcher(request.path).find()
          && r.body().test(request.body) && r.times().getAndDecrement() > 0) {
        return r.fault();
      }
    }
    double d;
    synchronized (random) {
      d = random.nextDouble();
    }
    return d < close ? Fault.CLOSE_UNANSWERED : d < close + lose ? Fault.LOSE_ANSWER : null;
  }

  /** A request or an answer, as bytes to pass on, with what the proxy needs of it. */
  private record Message(String method, String path, int status, byte[] bytes, boolean closes, String body) {}

  private static Message readRequest(InputStream in, OutputStream client) throws IOException {
    String line = readLine(in);
    if (line == null) {
      return null;
    }
    String[] parts = line.split(" ", 3);
    if (parts.length < 3) {
      throw new IOException("not an HTTP request: " + line);
    }
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    head.writeBytes((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    boolean expectContinue = false;
    for (String h = readLine(in); h != null && !h.isEmpty(); h = readLine(in)) {
      int colon = h.indexOf(':');
      String key = colon < 0 ? h.toLowerCase(Locale.ROOT) : h.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = colon < 0 ? "" : h.substring(colon + 1).strip();
      headers.merge(key, value, (a, b) -> a + ", " + b);
      if (key.equals("expect") && value.equalsIgnoreCase("100-continue")) {
        expectContinue = true;
      }
      if (key.equals("connection") && value.toLowerCase(Locale.ROOT).contains("upgrade")) {
        continue; // no protocol switch through this proxy: the answer stays HTTP/1.1
      }
      if (!HOP_BY_HOP.contains(key)) {
        head.writeBytes((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
    }
    head.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
    if (expectContinue) {
      // answered here, so that the body comes before the request is forwarded (or not)
      client.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      client.flush();
    }
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    readBody(in, headers, head, false, payload);
    boolean closes = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT).contains("close");
    byte[] all = head.toByteArray();
    byte[] body = payload.toByteArray();
    if (headers.getOrDefault("content-encoding", "").toLowerCase(Locale.ROOT).contains("gzip") && body.length > 0) {
      try (java.util.zip.GZIPInputStream gz = new java.util.zip.GZIPInputStream(
          new java.io.ByteArrayInputStream(body))) {
        body = gz.readAllBytes();
      } catch (IOException e) {
        // not gzip after all: matched as it is
      }
    }
    return new Message(parts[0], parts[1], 0, all, closes, new String(body, StandardCharsets.UTF_8));
  }

  private static Message readAnswer(InputStream in, String method) throws IOException {
    while (true) {
      String line = readLine(in);
      if (line == null) {
        return null;
      }
      int status = Integer.parseInt(line.split(" ", 3)[1]);
      Map<String, String> headers = new java.util.LinkedHashMap<>();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      all.writeBytes((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      for (String h = readLine(in); h != null && !h.isEmpty(); h = readLine(in)) {
        int colon = h.indexOf(':');
        headers.merge(h.substring(0, Math.max(colon, 0)).strip().toLowerCase(Locale.ROOT),
            colon < 0 ? "" : h.substring(colon + 1).strip(), (a, b) -> a + ", " + b);
        all.writeBytes((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
      all.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
      if (status >= 100 && status < 200) {
        continue; // an interim answer (no Expect is forwarded, so none is awaited): the final one follows
      }
      boolean noBody = method.equals("HEAD") || status == 204 || status == 304;
      boolean toTheEnd = !noBody && readBody(in, headers, all, true);
      boolean closes = toTheEnd || headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT).contains("close");
      return new Message(method, "", status, all.toByteArray(), closes, "");
    }
  }

  /**
   * Reads a message's body into {@code into}: by Content-Length, chunked, or (an answer with neither) to the end of
   * the connection; whether it read to the end.
   */
  private static boolean readBody(InputStream in, Map<String, String> headers, ByteArrayOutputStream into,
                                  boolean answer) throws IOException {
    return readBody(in, headers, into, answer, new ByteArrayOutputStream());
  }

  /** The same, the body's own bytes (without the chunks' framing) also into {@code payload}. */
  private static boolean readBody(InputStream in, Map<String, String> headers, ByteArrayOutputStream into,
                                  boolean answer, ByteArrayOutputStream payload) throws IOException {
    String te = headers.getOrDefault("transfer-encoding", "").toLowerCase(Locale.ROOT);
    if (te.contains("chunked")) {
      while (true) {
        String size = readLine(in);
        if (size == null) {
          throw new IOException("a chunked body cut short");
        }
        into.writeBytes((size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        int n = Integer.parseInt(size.split(";", 2)[0].strip(), 16);
        if (n == 0) {
          for (String t = readLine(in); t != null; t = readLine(in)) {
            into.writeBytes((t + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            if (t.isEmpty()) {
              break;
            }
          }
          return false;
        }
        byte[] chunk = in.readNBytes(n);
        into.writeBytes(chunk);
        payload.writeBytes(chunk);
        String end = readLine(in);
        into.writeBytes(((end == null ? "" : end) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      }
    }
    String length = headers.get("content-length");
    if (length != null) {
      long n = Long.parseLong(length.split(",")[0].strip());
      byte[] body = in.readNBytes((int) n);
      if (body.length < n) {
        throw new IOException("a body cut short");
      }
      into.writeBytes(body);
      payload.writeBytes(body);
      return false;
    }
    if (answer) {
      into.writeBytes(in.readAllBytes());
      return true;
    }
    return false;
  }

  /** A line up to CRLF (or LF), without it; null at the end of the stream before any byte. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  private static void quietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing: nothing more to do
    }
  }

  /** {@code <listen port> <target port> <close rate> <lose rate> <seed> <stats file>}. */
  public static void main(String[] args) throws Exception {
    FaultProxy p = new FaultProxy("main", Integer.parseInt(args[0]), Integer.parseInt(args[1]),
        Double.parseDouble(args[2]), Double.parseDouble(args[3]), Long.parseLong(args[4]));
    java.nio.file.Path stats = java.nio.file.Path.of(args[5]);
    Runnable write = () -> {
      Stats s = p.stats();
      try {
        java.nio.file.Files.writeString(stats, "{\"requests\": " + s.requests() + ", \"closed_unanswered\": "
            + s.closedUnanswered() + ", \"answers_lost\": " + s.answersLost() + "}\n");
      } catch (IOException e) {
        System.err.println("fault proxy: cannot write " + stats + ": " + e);
      }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(write));
    System.out.println("fault proxy on 127.0.0.1:" + p.port() + " -> 127.0.0.1:" + args[1]);
    System.out.flush();
    while (true) {
      write.run();
      Thread.sleep(1000);
    }
  }

  /** Every request the proxy closed or whose answer it lost, for a test's report. */
  public List<String> faulted() {
    return new ArrayList<>(faulted);
  }
}
