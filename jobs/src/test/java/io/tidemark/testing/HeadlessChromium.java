package io.tidemark.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real headless Chromium, driven over the DevTools protocol (Java's own WebSocket client): open a page, evaluate
 * JavaScript in it, save a screenshot of the whole page. Fails loudly when chromium is not installed (Debian:
 * {@code apt-get install -y chromium}; .ci/run does it). The Airflow tests drive it the same way
 * (dags/tests/browser.py).
 */
public final class HeadlessChromium implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending;

  private HeadlessChromium(Process process, Path profile, WebSocket socket,
                           Map<Integer, CompletableFuture<JsonNode>> pending) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
    this.pending = pending;
  }

  /** Starts chromium with a fresh profile and a window of the given size, and connects to its page. */
  public static HeadlessChromium start(int width, int height) throws Exception {
    String binary = Stream.of("chromium", "chromium-browser").map(HeadlessChromium::onPath).filter(p -> p != null)
        .findFirst().orElseThrow(() -> new AssertionError(
            "chromium is not installed (Debian: apt-get install -y chromium; .ci/run does it)"));
    Path profile = Files.createTempDirectory("tidemark-chromium-");
    Process p = new ProcessBuilder(binary, "--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
        "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height, "about:blank")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      return connect(p, profile);
    } catch (Exception | AssertionError e) {
      p.destroyForcibly();
      throw e;
    }
  }

  private static HeadlessChromium connect(Process p, Path profile) throws Exception {
    // chromium writes the port it listens on into the profile once it is up
    Path portFile = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!Files.isRegularFile(portFile) || Files.readAllLines(portFile).isEmpty()) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("chromium did not start (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
      }
      Thread.sleep(100);
    }
    int port = Integer.parseInt(Files.readAllLines(portFile).get(0).strip());
    HttpClient http = HttpClient.newHttpClient();
    String ws = null;
    while (ws == null) {
      JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/json/list")).build(), HttpResponse.BodyHandlers.ofString()).body());
      for (JsonNode t : targets) {
        if ("page".equals(t.path("type").asText())) {
          ws = t.path("webSocketDebuggerUrl").asText();
        }
      }
      if (ws == null && System.nanoTime() > deadline) {
        throw new AssertionError("chromium has no page to drive");
      }
      Thread.sleep(ws == null ? 100 : 0);
    }
    Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(ws), new Listener(pending))
        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    return new HeadlessChromium(p, profile, socket, pending);
  }

  private static String onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }

  /** Sends a DevTools command and waits for its result. */
  public JsonNode send(String method, Map<String, Object> params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> result = new CompletableFuture<>();
    pending.put(id, result);
    ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
    msg.set("params", JSON.valueToTree(params));
    socket.sendText(JSON.writeValueAsString(msg), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    JsonNode reply = result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (reply.has("error")) {
      throw new AssertionError(method + ": " + reply.get("error"));
    }
    return reply.path("result");
  }

  /** Opens {@code url} and waits until the page and everything in it has loaded. */
  public void open(String url) throws Exception {
    send("Page.enable", Map.of());
    send("Page.navigate", Map.of("url", url));
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!"complete".equals(evaluate("document.readyState").asText())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(url + " did not finish loading");
      }
      Thread.sleep(100);
    }
  }

  /** The value of a JavaScript expression in the page, as JSON. */
  public JsonNode evaluate(String expression) throws Exception {
    return send("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true,
        "awaitPromise", true)).path("result").path("value");
  }

  /** A PNG of the whole page, as tall as it is. */
  public void screenshot(Path png) throws Exception {
    JsonNode size = evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]");
    JsonNode shot = send("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true,
        "clip", Map.of("x", 0, "y", 0, "width", size.get(0).asInt(), "height", size.get(1).asInt(), "scale", 1)));
    Files.createDirectories(png.toAbsolutePath().getParent());
    Files.write(png, Base64.getDecoder().decode(shot.path("data").asText()));
  }

  @Override
  public void close() throws IOException {
    try {
      socket.abort();
    } finally {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try (Stream<Path> files = Files.walk(profile)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      } catch (IOException e) {
        // a file chromium still writes while it exits; the temporary directory goes with the machine's
      }
    }
  }

  /** Hands each reply to the command waiting for its id; events (no id) are of no interest here. */
  private static final class Listener implements WebSocket.Listener {
    private final Map<Integer, CompletableFuture<JsonNode>> pending;
    private final StringBuilder text = new StringBuilder();

    Listener(Map<Integer, CompletableFuture<JsonNode>> pending) {
      this.pending = pending;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        try {
          JsonNode msg = JSON.readTree(text.toString());
          if (msg.has("id")) {
            CompletableFuture<JsonNode> f = pending.remove(msg.get("id").asInt());
            if (f != null) {
              f.complete(msg);
            }
          }
        } catch (IOException e) {
          pending.values().forEach(f -> f.completeExceptionally(e));
        }
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }
  }
}
