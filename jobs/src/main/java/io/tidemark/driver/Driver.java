package io.tidemark.driver;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.services.Endpoints;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resident driver: one JVM holding one warm SparkContext (local natively; on docker compose one application on
 * the standalone cluster, with its executors) that runs the commands callers hand it, each as its own JVM would run
 * it ({@link CommandRun}). Listens on a Unix socket in the tidemark home or on the compose network; a caller must
 * prove it knows the key ({@link Wire}). At most {@code slots} commands run at once; more wait their turn, first come
 * first served.
 */
public final class Driver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Driver.class);
  private static final long AUTH_MS = 10_000;
  /** How long a soak's sample waits after a full collection for what it freed to be let go. */
  private static final long SETTLE_MS = 5_000;

  private final TidemarkConfig config;
  private final Map<String, String> conf;
  private final SparkSession base;
  private final Endpoints endpoints;
  private final DriverAddress address;
  private final List<ServerSocketChannel> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile WarmUp.Result warmUp;
  private final Semaphore slots;
  private final int slotCount;
  private final Map<String, CommandRun> running = new ConcurrentHashMap<>();
  private final Set<CommandSessions> inUse = ConcurrentHashMap.newKeySet();
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong ids = new AtomicLong();
  private final Instant started = Instant.now();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closing;

  private Driver(TidemarkConfig config, Endpoints endpoints, SparkSession base, DriverAddress address, int slots) {
    this.config = config;
    this.endpoints = endpoints;
    this.conf = SparkSessions.conf(config, endpoints);
    this.base = base;
    this.address = address;
    this.slotCount = slots;
    this.slots = new Semaphore(slots, true);
  }

  /** Makes the driver's session (the SparkContext every command shares) and listens. */
  public static Driver start(TidemarkConfig config, Endpoints endpoints, DriverAddress address, int slots)
      throws IOException {
    return start(config, endpoints, address, slots, Map.of(), 0, line -> { });
  }

  /**
   * The same, after a warm-up of {@code warmUpArrivals} seed arrivals ({@link WarmUp}; 0: none) run with the
   * settings of {@code env} on a pipeline of its own, each of its steps said to {@code say}: callers find the driver
   * once it is warm, and its first commands are as fast as its later ones. A warm-up that fails is said and the
   * driver serves all the same (commands do not need it).
   */
  public static Driver start(TidemarkConfig config, Endpoints endpoints, DriverAddress address, int slots,
                             Map<String, String> env, int warmUpArrivals, java.util.function.Consumer<String> say)
      throws IOException {
    SparkSession base = SparkSessions.getOrCreate(config, endpoints, "tidemark driver");
    // no command runs on this session, only on new sessions of it: its catalog is never made, so the driver does not
    // depend on the branches its own settings name (a pipeline not bootstrapped yet has none)
    base.conf().set("spark.sql.defaultCatalog", "spark_catalog");
    // the first query of a JVM pays for the planner's classes and the JIT: before the first caller, not by it
    base.sql("SELECT 1").collectAsList();
    Driver d = new Driver(config, endpoints, base, address, slots);
    if (warmUpArrivals > 0) {
      d.warmUp = new WarmUp(d, env, say).run(warmUpArrivals);
    }
    d.listen(address, address.newKey(), true);
    return d;
  }

  /**
   * Serves callers at {@code at} who prove they know {@code key}; the channel bound (a port 0 is the one given).
   * {@code counted}: whether the status counts its commands (the callers', not the warm-up's).
   */
  ServerSocketChannel listen(DriverAddress at, byte[] key, boolean counted) throws IOException {
    ServerSocketChannel server = at.bind();
    servers.add(server);
    Thread accept = new Thread(() -> accept(server, at, key, counted), "tidemark-driver-accept");
    accept.setDaemon(true);
    accept.start();
    return server;
  }

  /** Stops serving callers at {@code server} (the warm-up's own address once it is done). */
  void unlisten(ServerSocketChannel server) {
    servers.remove(server);
    try {
      server.close();
    } catch (IOException e) {
      // closing: nothing to do
    }
  }

  Endpoints endpoints() {
    return endpoints;
  }

  /** The warm-up's outcome; empty when none ran. */
  public Optional<WarmUp.Result> warmUp() {
    return Optional.ofNullable(warmUp);
  }

  SparkSession base() {
    return base;
  }

  TidemarkConfig config() {
    return config;
  }

  public DriverAddress address() {
    return address;
  }

  /**
   * Whether a command whose Spark settings are {@code commandConf} can run here: its SparkContext's settings (the
   * SQL extensions, s3a's endpoint and keys) and its Nessie server must be the driver's. Where the work runs is the
   * driver's: a command's master is not compared. Empty when it can; else the first setting that differs.
   */
  Optional<String> servable(Map<String, String> commandConf) {
    return servable(conf, commandConf);
  }

  /**
   * The same, for a driver whose Spark settings are {@code driverConf}: what a caller that knows them (the test
   * suite's) asks before it hands a command over, so that it never meets the driver's refusal.
   */
  public static Optional<String> servable(Map<String, String> driverConf, Map<String, String> commandConf) {
    for (Map.Entry<String, String> e : commandConf.entrySet()) {
      String k = e.getKey();
      boolean compared = SparkSessions.isContextSetting(k) && !k.equals("spark.master")
          && !k.startsWith("spark.driver.") || k.equals("spark.sql.catalog." + SparkSessions.CATALOG + ".uri");
      if (compared && !Objects.equals(driverConf.get(k), e.getValue())) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  private void accept(ServerSocketChannel server, DriverAddress at, byte[] key, boolean counted) {
    while (!closing && server.isOpen()) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        break;
      } catch (IOException e) {
        LOG.warn("the driver could not accept a caller", e);
        continue;
      }
      Thread t = new Thread(() -> converse(ch, at, key, counted), "tidemark-driver-caller");
      t.setDaemon(true);
      t.start();
    }
  }

  private void converse(SocketChannel ch, DriverAddress address, byte[] key, boolean counted) {
    try (ch) {
      InputStream in = Wire.in(ch);
      OutputStream out = Wire.out(ch);
      byte[] nonce = Wire.nonce();
      byte[] hello = new byte[32 + Wire.VERSION.length()];
      System.arraycopy(nonce, 0, hello, 0, 32);
      System.arraycopy(Wire.VERSION.getBytes(StandardCharsets.UTF_8), 0, hello, 32, Wire.VERSION.length());
      Wire.Frame auth;
      try {
        Wire.write(out, Wire.HELLO, hello);
        auth = withDeadline(ch, in);
      } catch (IOException e) {
        // a health check's TCP connect (compose's, every 10 s) or a port scan: it left before it said who it is
        LOG.debug("a caller left before it said who it is ({}): {}", address, e.getMessage());
        return;
      }
      if (auth.type() != Wire.AUTH || !Wire.proves(key, nonce, auth.payload())) {
        refused.incrementAndGet();
        LOG.warn("refused a caller that did not prove it knows the driver's key ({})", address);
        Wire.write(out, Wire.DENIED, "not authenticated: the key of " + (address.onNetwork()
            ? DriverAddress.SECRET_ENV + " differs" : address.socket().get().resolveSibling("driver.key") + " differs"));
        return;
      }
      Wire.write(out, Wire.WELCOME, new byte[0]);
      Wire.Frame ask = Wire.read(in);
      if (ask.type() == Wire.PING) {
        if ("gc".equals(ask.text())) {
          // what the commands left that the JVM cannot free: a soak's measure. What the collection frees is let go
          // by threads of its own within seconds (Spark's context cleaner removes the listeners of sessions gone, an
          // HTTP client's selector thread ends when it finds its client gone): counted after those
          System.gc();
          try {
            Thread.sleep(SETTLE_MS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          System.gc();
        }
        Wire.write(out, Wire.STATUS, status());
      } else if (ask.type() == Wire.REQUEST) {
        CommandRun run = new CommandRun(this, "c" + ids.incrementAndGet(), Wire.decode(ask.payload()), ch);
        running.put(run.id(), run);
        try {
          int code = run.run();
          if (code >= 0 && counted) {
            (code == 0 ? served : failed).incrementAndGet();
          }
        } finally {
          running.remove(run.id());
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closing) {
        LOG.warn("a caller's conversation with the driver ended early", e);
      }
    }
  }

  /** The caller's first frame, or the connection closed: one that does not say who it is in time gets nothing. */
  private static Wire.Frame withDeadline(SocketChannel ch, InputStream in) throws IOException {
    try (AutoCloseable guard = Wire.deadline(ch, AUTH_MS, "tidemark-driver-auth")) {
      return Wire.read(in);
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  void opened(CommandSessions sessions) {
    inUse.add(sessions);
  }

  void closed(CommandSessions sessions) {
    inUse.remove(sessions);
  }

  /** The driver's own session and those of the commands that have not ended. */
  List<SparkSession> sessionsInUse() {
    List<SparkSession> out = new ArrayList<>();
    out.add(base);
    inUse.forEach(s -> out.addAll(s.sessions()));
    return out;
  }

  /** Waits for a place among the commands that run at once; false when the wait was cut (a cancel). */
  boolean enter() {
    try {
      slots.acquire();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void leave() {
    slots.release();
  }

  /**
   * One line: what the driver is and does, and what it holds (heap, threads, open files, commands' scopes); then how
   * its warm-up went, when it had one.
   */
  public String status() {
    Runtime rt = Runtime.getRuntime();
    String[] fds = new java.io.File("/proc/self/fd").list();
    return String.format("serving on %s since %s (pid %d, up %s), Spark %s on %s, %s; commands: %d done, %d failed, "
            + "%d running, %d waiting (%d at once), %d callers refused; heap %d of %d MB, %d threads, %d open files, "
            + "%d open scopes",
        address, started, ProcessHandle.current().pid(), Duration.between(started, Instant.now()).withNanos(0)
            .toString().substring(2).toLowerCase(java.util.Locale.ROOT),
        base.version(), base.sparkContext().master(), ResidentJvm.jit(), served.get(), failed.get(), running.size(),
        slots.getQueueLength(), slotCount, refused.get(), (rt.totalMemory() - rt.freeMemory()) >> 20,
        rt.maxMemory() >> 20, java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount(),
        fds == null ? -1 : fds.length,
        io.tidemark.CommandScope.openScopes()) + warmUp().map(w -> "; " + w).orElse("");
  }

  /** Blocks until {@link #close}. */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /** Stops listening, cancels what runs (waiting for it a while), removes the socket and the key file. */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    servers.forEach(this::unlisten);
    running.values().forEach(CommandRun::cancel);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!running.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    address.remove();
    stopped.countDown();
  }
}
