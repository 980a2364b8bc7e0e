package io.tidemark.driver;

import io.tidemark.CommandScope;
import io.tidemark.cli.CallerPaths;
import io.tidemark.cli.Tidemark;
import io.tidemark.lakehouse.spark.SparkSessions;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.SparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One command in the resident driver, run as its own JVM would run it: its settings from the caller's environment and
 * flags (relative paths from the caller's directory), its output to the caller, its libraries' logs to its own file,
 * its exit code back; on a thread of its own bound to a {@link CommandScope}, its Spark work in sessions of its own
 * ({@link CommandSessions}) whose jobs carry its tag. A cancel (the caller's signal, or its connection closing) stops
 * its jobs and streams and interrupts it; nothing it leaves reaches the next command.
 */
final class CommandRun {
  private static final Logger LOG = LoggerFactory.getLogger(CommandRun.class);

  private final Driver driver;
  private final String id;
  private final Wire.Request request;
  private final SocketChannel ch;
  private final InputStream in;
  private final OutputStream out;
  private volatile Thread thread;
  private volatile CommandSessions sessions;
  private volatile boolean done;
  private volatile boolean cancelled;
  private int code = 1;

  CommandRun(Driver driver, String id, Wire.Request request, SocketChannel ch) {
    this.driver = driver;
    this.id = id;
    this.request = request;
    this.ch = ch;
    this.in = Wire.in(ch);
    this.out = Wire.out(ch);
  }

  String id() {
    return id;
  }

  /** Runs the command and answers its exit code; -1 when the driver does not run it (the caller runs it itself). */
  int run() throws IOException {
    Path workDir = Path.of(request.workDir());
    Map<String, String> env = CallerPaths.env(request.env(), workDir);
    List<String> args = CallerPaths.args(request.args(), env, workDir);
    if (!Handoff.runs(args, env)) {
      Wire.write(out, Wire.REFUSED, "it runs in a JVM of its own");
      return -1;
    }
    Optional<String> other = Tidemark.sparkSettings(env, args).flatMap(driver::servable);
    if (other.isPresent()) {
      Wire.write(out, Wire.REFUSED, "it names other services than the driver's (" + other.get() + ")");
      return -1;
    }
    Thread t = new Thread(() -> execute(env, args), "tidemark-command-" + id);
    t.setDaemon(true);
    thread = t;
    t.start();
    watch();
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return code;
  }

  /** Until the command ends: a cancel from the caller, or the caller gone, stops it. */
  private void watch() {
    while (!done) {
      Wire.Frame f;
      try {
        f = Wire.read(in);
      } catch (IOException e) {
        if (!done) {
          LOG.info("the caller of command {} ({}) went away: cancelling it", id, request.args());
          cancel();
        }
        return;
      }
      if (f.type() == Wire.CANCEL) {
        LOG.info("command {} ({}) cancelled by its caller", id, request.args());
        cancel();
      }
    }
  }

  /** Stops the command's Spark jobs and streams and interrupts it; the driver goes on. */
  void cancel() {
    cancelled = true;
    CommandSessions s = sessions;
    if (s != null) {
      s.stop();
    }
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  private void execute(Map<String, String> env, List<String> args) {
    OutputStream errFrames = frames(Wire.ERR);
    PrintWriter o = new PrintWriter(new OutputStreamWriter(frames(Wire.OUT), StandardCharsets.UTF_8), true);
    PrintWriter e = new PrintWriter(new OutputStreamWriter(errFrames, StandardCharsets.UTF_8), true);
    if (!driver.enter()) {
      e.println("tidemark: cancelled while it waited for the resident driver");
      finish(1);
      return;
    }
    CommandScope scope = CommandScope.open(id, env);
    CommandSessions s = new CommandSessions(driver, scope);
    sessions = s;
    scope.put(SparkSessions.Source.class, s);
    SparkContext sc = driver.base().sparkContext();
    OutputStream log = null;
    int result = 1;
    try (CommandScope.Binding bound = scope.bind()) {
      sc.addJobTag(s.tag());
      Optional<Path> file = args.contains("--debug") ? Optional.empty()
          : Tidemark.logFileFor(env, args, request.pid());
      file.ifPresent(scope::logFile);
      log = file.isPresent() ? new FileOutputStream(file.get().toFile(), true) : errFrames;
      scope.put(CommandLogging.Sink.class, new CommandLogging.Sink(log, errFrames));
      if (cancelled) {
        throw new InterruptedException("cancelled");
      }
      result = Tidemark.execute(env, args, o, e);
    } catch (Exception | Error failure) {
      e.println("tidemark: " + (cancelled ? "cancelled" : failure.toString()));
      result = 1;
    } finally {
      // what the command leaves is stopped and let go before the caller hears it ended: the next starts clean
      Thread.interrupted();
      try {
        s.release();
      } catch (RuntimeException failure) {
        LOG.warn("releasing command {}", id, failure);
      }
      sc.removeJobTag(s.tag());
      scope.close();
      if (log != null && log != errFrames) {
        try {
          log.close();
        } catch (IOException ignored) {
          // the file was the command's; nothing more to write to it
        }
      }
      driver.leave();
      o.flush();
      e.flush();
      finish(result);
    }
  }

  private void finish(int result) {
    code = result;
    done = true;
    try {
      Wire.write(out, Wire.EXIT, Wire.exit(result));
      ch.shutdownInput();
    } catch (IOException e) {
      // the caller is gone: nobody to tell
    }
  }

  private OutputStream frames(byte type) {
    return Wire.frames(out, type);
  }
}
