package io.tidemark.driver;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.nessie.CommitStory;
import io.tidemark.lakehouse.nessie.NessieRefs;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.storage.Storage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A driver's warm-up before it takes callers: the seed's arrivals landed, streamed and published through the driver
 * itself, as its callers' commands are (over a loopback address and a key of its own), so that the JIT has compiled
 * the paths an arrival takes (the driver's and, on a cluster, its executors') before the first caller's arrival
 * pays for it. It works on a pipeline of its own: the built-in seed in namespace {@value #NAMESPACE}, published on
 * branch {@value #BRANCH} and staged on {@value #STAGING}, landing in the landing bucket's name + {@value #SUFFIX},
 * checkpoints in the checkpoint root's + {@value #SUFFIX}; none of it is the pipeline's. Everything it made is
 * removed after it, and what a killed warm-up left before it; one warm-up at a time per catalog (a home has one
 * driver, compose one).
 */
public final class WarmUp {
  public static final String NAMESPACE = "tidemark_warm_up";
  public static final String BRANCH = "tidemark-warm-up";
  public static final String STAGING = BRANCH + "-staging";
  public static final String SUFFIX = "-warm-up";
  /** The seed's arrivals: what a warm-up can run. */
  public static final int MAX_ARRIVALS = 4;

  /** How a warm-up went: its commands, its seconds and, when it failed, why. */
  public record Result(int arrivals, int commands, long millis, Optional<String> failure) {
    @Override
    public String toString() {
      String took = String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
      return failure.map(f -> "warm-up: failed after " + took + " (" + f + "); serving all the same")
          .orElse("warm-up: done in " + took + " (" + commands + " commands: seed arrival"
              + (arrivals == 1 ? " 1" : "s 1-" + arrivals) + " landed, streamed and published on a pipeline of its own, "
              + "then removed)");
    }
  }

  private final Driver driver;
  private final Map<String, String> env;
  private final Consumer<String> say;
  private final TidemarkConfig own;

  /** {@code env}: the driver's environment, whose settings the warm-up's commands take but for its own. */
  WarmUp(Driver driver, Map<String, String> env, Consumer<String> say) {
    this.driver = driver;
    this.env = env;
    this.say = say;
    TidemarkConfig c = driver.config();
    Map<Setting, String> mine = new EnumMap<>(Setting.class);
    mine.put(Setting.PIPELINE, null);
    mine.put(Setting.SCOPE, NAMESPACE);
    mine.put(Setting.NESSIE_REF, BRANCH);
    mine.put(Setting.STAGING_BRANCH, STAGING);
    mine.put(Setting.LANDING_BUCKET, c.landingBucket() + SUFFIX);
    mine.put(Setting.CHECKPOINT_ROOT, stripSlash(c.checkpointRoot()) + SUFFIX);
    this.own = c.with(mine);
  }

  /** Runs seed arrivals 1 to {@code arrivals}; never throws: a failure is in the result. */
  Result run(int arrivals) {
    long t0 = System.nanoTime();
    int[] commands = {0};
    Optional<String> failure;
    say.accept("driver: warming up: seed arrival" + (arrivals == 1 ? " 1" : "s 1-" + arrivals) + " on branch "
        + BRANCH + ", namespace " + NAMESPACE + ", bucket " + own.landingBucket());
    try {
      clean();
      failure = commands(arrivals, commands);
    } catch (RuntimeException | IOException e) {
      failure = Optional.of(e.getMessage() == null ? e.toString() : e.getMessage());
    }
    try {
      clean();
    } catch (RuntimeException | IOException e) {
      String left = "could not remove what it made: " + e.getMessage();
      failure = Optional.of(failure.map(f -> f + "; " + left).orElse(left));
    }
    Result r = new Result(arrivals, commands[0], (System.nanoTime() - t0) / 1_000_000, failure);
    say.accept("driver: " + r);
    return r;
  }

  private Optional<String> commands(int arrivals, int[] count) throws IOException {
    try (NessieRefs refs = new NessieRefs(driver.endpoints())) {
      // its published branch from the head of Nessie's default one, as a user's first published branch is; the
      // bootstrap merges into it, which Nessie does only for branches with a common ancestor
      refs.ensureBranch(BRANCH, refs.defaultBranch());
      if (refs.log(BRANCH).findFirst().isEmpty()) {
        refs.mark(BRANCH, "tidemark driver: its warm-up's published branch", SparkSessions.AUTHOR, Map.of());
      }
    }
    String secret = HexFormat.of().formatHex(Wire.nonce());
    ServerSocketChannel server = driver.listen(DriverAddress.ofNetwork("127.0.0.1:0", secret),
        secret.getBytes(StandardCharsets.UTF_8), false);
    try {
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      Map<String, String> cmdEnv = commandEnv("127.0.0.1:" + port, secret);
      List<List<String>> steps = new ArrayList<>();
      steps.add(List.of("bootstrap"));
      for (int k = 1; k <= arrivals; k++) {
        steps.add(List.of("land", "--scenario", "seed", "--arrival", Integer.toString(k)));
        steps.add(List.of("stream", "all"));
        steps.add(List.of("publish"));
      }
      for (List<String> args : steps) {
        Optional<String> failed = command(args, cmdEnv);
        count[0]++;
        if (failed.isPresent()) {
          return failed;
        }
      }
      return Optional.empty();
    } finally {
      driver.unlisten(server);
    }
  }

  /** The driver's settings, with the warm-up's own pipeline and the loopback address it listens on for it. */
  private Map<String, String> commandEnv(String address, String secret) {
    Map<String, String> out = new HashMap<>();
    env.forEach((k, v) -> {
      if (k.startsWith("TIDEMARK_")) {
        out.put(k, v);
      }
    });
    out.remove("TIDEMARK_TEST_CRASH");
    out.remove(DriverAddress.MODE_ENV);
    own.describe().forEach((s, v) -> {
      if (!s.isSecret()) {
        if (v == null) {
          out.remove(s.env());
        } else {
          out.put(s.env(), v);
        }
      }
    });
    out.put(DriverAddress.ADDRESS_ENV, address);
    out.put(DriverAddress.SECRET_ENV, secret);
    out.put(CommitStory.RUN_CONTEXT_ENV, "driver warm-up");
    return out;
  }

  private Optional<String> command(List<String> args, Map<String, String> cmdEnv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = DriverClient.run(args, cmdEnv, own.home(), out, err);
    if (code == 0) {
      return Optional.empty();
    }
    String said = lastLine(err).or(() -> lastLine(out)).orElse("no output");
    return Optional.of("`tidemark " + String.join(" ", args) + "` "
        + (code == DriverClient.NOT_SERVED ? "was not run by the driver" : "exited " + code) + ": " + said);
  }

  private static Optional<String> lastLine(ByteArrayOutputStream s) {
    String[] lines = s.toString(StandardCharsets.UTF_8).strip().split("\n");
    return lines[lines.length - 1].isBlank() ? Optional.empty() : Optional.of(lines[lines.length - 1].strip());
  }

  /** Removes the warm-up's branches, landed files, table files and checkpoints, wherever a warm-up left them. */
  void clean() throws IOException {
    try (NessieRefs refs = new NessieRefs(driver.endpoints())) {
      for (String b : List.of(STAGING, BRANCH)) {
        if (refs.exists(b)) {
          refs.deleteBranch(b);
        }
      }
    }
    try (Storage storage = Storage.connect(own, driver.endpoints())) {
      purge(storage, "s3://" + own.landingBucket() + "/");
      purge(storage, stripSlash(own.warehouse()) + "/" + NAMESPACE + "/");
      purge(storage, stripSlash(own.checkpointRoot()) + "/");
    }
  }

  /** Everything under {@code location}: objects under an s3 or s3a prefix, or a local directory. */
  private static void purge(Storage storage, String location) throws IOException {
    if (!location.contains("://") || location.startsWith("file:")) {
      Path dir = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
      if (Files.exists(dir)) {
        try (Stream<Path> walk = Files.walk(dir)) {
          for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      return;
    }
    URI uri = URI.create(location);
    if (!storage.bucketExists(uri.getAuthority())) {
      return;
    }
    String prefix = uri.getPath().startsWith("/") ? uri.getPath().substring(1) : uri.getPath();
    for (Storage.ObjectInfo o : storage.list(uri.getAuthority(), prefix)) {
      storage.remove(uri.getAuthority(), o.key());
    }
  }

  private static String stripSlash(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }
}
