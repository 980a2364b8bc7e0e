package io.tidemark.driver;

import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The launcher's caller of the resident driver: hands it the command as this process would run it (its arguments,
 * its working directory, its TIDEMARK_* environment), prints what the command prints, exits with its code. When no
 * driver serves it, exits {@link #NOT_SERVED} having run nothing, and the launcher starts a JVM as ever; it says so
 * in one line when a driver was expected (its socket is there, or TIDEMARK_DRIVER_ADDRESS names one) but did not
 * answer. A signal (Airflow's timeout, Ctrl-C) cancels the command in the driver: its Spark jobs and streams stop,
 * the driver goes on serving.
 *
 * <p>Kept to the JDK: it starts in a fraction of the time a Spark JVM does, and nothing else is loaded.
 */
public final class DriverClient {
  /** No driver ran the command: the launcher runs it in a JVM of its own. */
  public static final int NOT_SERVED = 75;
  /** What a caller of a driver killed mid-command exits with: what a killed JVM gives. */
  static final int DRIVER_LOST = 137;
  private static final long HELLO_MS = 5000;
  private static final long CANCEL_WAIT_MS = 20_000;

  private DriverClient() {}

  public static void main(String[] argv) {
    OutputStream out = new FileOutputStream(FileDescriptor.out);
    OutputStream err = new FileOutputStream(FileDescriptor.err);
    System.exit(run(List.of(argv), System.getenv(), Path.of("").toAbsolutePath(), out, err));
  }

  static int run(List<String> args, Map<String, String> env, Path workDir, OutputStream out, OutputStream err) {
    PrintStream notices = new PrintStream(err, true, StandardCharsets.UTF_8);
    if (Handoff.asksStatus(args)) {
      return status(args, env, workDir, out);
    }
    if ("off".equals(env.get(DriverAddress.MODE_ENV)) || !Handoff.runs(args, env)) {
      return NOT_SERVED;
    }
    DriverAddress address;
    try {
      address = DriverAddress.of(env, Handoff.home(args, env, workDir));
    } catch (IllegalArgumentException e) {
      notices.println("tidemark: " + e.getMessage() + "; running the command in a JVM of its own");
      return NOT_SERVED;
    }
    if (address.socket().filter(s -> !Files.exists(s)).isPresent()) {
      return NOT_SERVED;  // no driver was started for this home: nothing to say
    }
    SocketChannel ch;
    byte[] key;
    try {
      key = address.key();
      ch = address.connect();
    } catch (IOException | RuntimeException e) {
      notDriven(notices, address, e);
      return NOT_SERVED;
    }
    try (ch) {
      return converse(ch, key, new Wire.Request(ProcessHandle.current().pid(), workDir.toString(), args,
          callerEnv(env)), out, err, notices, address);
    } catch (IOException e) {
      return DRIVER_LOST;
    }
  }

  /**
   * {@code tidemark driver status} when the driver answers: its line, as the command prints it, from this small JVM
   * (a poll of the status, as the tests and a person waiting for a command do, no longer costs a tidemark JVM each).
   * When it does not answer, the command runs in a JVM of its own, which says where it looked and why (exit 3).
   */
  private static int status(List<String> args, Map<String, String> env, Path workDir, OutputStream out) {
    try {
      DriverAddress address = DriverAddress.of(env, Handoff.home(args, env, workDir));
      if (address.socket().filter(s -> !Files.exists(s)).isPresent()) {
        return NOT_SERVED;
      }
      String answer = ping(address);
      PrintStream printed = new PrintStream(out, true, StandardCharsets.UTF_8);
      printed.println("driver: " + answer);
      return printed.checkError() ? 1 : 0;
    } catch (IOException | RuntimeException e) {
      return NOT_SERVED;
    }
  }

  /** The caller's settings: its TIDEMARK_* variables, but the driver's secret, which it proves and never sends. */
  static Map<String, String> callerEnv(Map<String, String> env) {
    Map<String, String> out = new TreeMap<>();
    env.forEach((k, v) -> {
      if (k.startsWith("TIDEMARK_") && !k.equals(DriverAddress.SECRET_ENV)) {
        out.put(k, v);
      }
    });
    return out;
  }

  private static int converse(SocketChannel ch, byte[] key, Wire.Request request, OutputStream out,
                              OutputStream err, PrintStream notices, DriverAddress address) throws IOException {
    InputStream in = Wire.in(ch);
    OutputStream to = Wire.out(ch);
    // a driver that accepts but does not greet (stopped in a debugger, out of memory) must not hold the caller
    try (AutoCloseable guard = Wire.deadline(ch, HELLO_MS, "tidemark-driver-hello")) {
      Wire.Frame hello = Wire.read(in);
      if (hello.type() != Wire.HELLO || hello.payload().length < 32) {
        throw new IOException("it is not a tidemark driver");
      }
      String version = new String(hello.payload(), 32, hello.payload().length - 32, StandardCharsets.UTF_8);
      if (!Wire.VERSION.equals(version)) {
        throw new IOException("it speaks " + version + ", this launcher " + Wire.VERSION);
      }
      byte[] nonce = java.util.Arrays.copyOf(hello.payload(), 32);
      Wire.write(to, Wire.AUTH, Wire.proof(key, nonce));
      Wire.Frame welcome = Wire.read(in);
      if (welcome.type() == Wire.DENIED) {
        notices.println("tidemark: the resident driver at " + address + " refused this caller: " + welcome.text()
            + "; running the command in a JVM of its own");
        return NOT_SERVED;
      }
      if (welcome.type() != Wire.WELCOME) {
        throw new IOException("it answered " + (char) welcome.type() + " to the key");
      }
      Wire.write(to, Wire.REQUEST, Wire.encode(request));
    } catch (IOException e) {
      notDriven(notices, address, e);
      return NOT_SERVED;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    CountDownLatch ended = new CountDownLatch(1);
    boolean[] cancelled = {false};
    Thread cancel = new Thread(() -> {
      if (ended.getCount() == 0) {
        return;
      }
      cancelled[0] = true;
      try {
        Wire.write(to, Wire.CANCEL, new byte[0]);
        notices.println("tidemark: cancelled; the resident driver stops the command's Spark jobs and streams");
        ended.await(CANCEL_WAIT_MS, TimeUnit.MILLISECONDS);
      } catch (IOException | InterruptedException e) {
        // the driver is gone, or the wait was cut short: nothing more to stop here
      }
    }, "tidemark-driver-cancel");
    Runtime.getRuntime().addShutdownHook(cancel);
    boolean started = false;
    Console console = new Console(out, err);
    try {
      while (true) {
        Wire.Frame f;
        try {
          f = Wire.read(in);
        } catch (EOFException e) {
          if (!cancelled[0]) {
            notices.println("tidemark: the resident driver at " + address + " ended while it ran this command "
                + "(killed or stopped): the command did what a killed JVM does; running it again completes it "
                + "(see docs/troubleshooting.md#the-resident-driver)");
          }
          return DRIVER_LOST;
        }
        switch (f.type()) {
          case Wire.OUT -> {
            started = true;
            console.out(f.payload());
          }
          case Wire.ERR -> {
            started = true;
            console.err(f.payload());
          }
          case Wire.EXIT -> {
            return Wire.exitCode(f.payload());
          }
          case Wire.REFUSED -> {
            if (started) {
              throw new IOException("the driver refused a command it had started");
            }
            notices.println("tidemark: the resident driver at " + address + " does not run this command: "
                + f.text() + "; running the command in a JVM of its own");
            return NOT_SERVED;
          }
          default -> throw new IOException("unexpected frame " + (char) f.type());
        }
      }
    } finally {
      ended.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(cancel);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it sees the latch and returns
      }
    }
  }

  /**
   * The caller's standard output and error as a JVM's {@code System.out} and {@code System.err} are: a write that
   * fails (a full disk, a pipe its reader closed) is dropped and the command goes on to its exit code, which is what
   * the caller gets, as from a command in a JVM of its own; the caller's console is no reason to give up the command.
   */
  private static final class Console {
    private final OutputStream out;
    private final OutputStream err;
    private boolean outBroken;
    private boolean errBroken;

    Console(OutputStream out, OutputStream err) {
      this.out = out;
      this.err = err;
    }

    void out(byte[] bytes) {
      outBroken = outBroken || !write(out, bytes);
    }

    void err(byte[] bytes) {
      errBroken = errBroken || !write(err, bytes);
    }

    private boolean write(OutputStream to, byte[] bytes) {
      if (to == out ? outBroken : errBroken) {
        return false;
      }
      try {
        to.write(bytes);
        to.flush();
        return true;
      } catch (IOException e) {
        return false;
      }
    }
  }

  private static void notDriven(PrintStream notices, DriverAddress address, Exception e) {
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    notices.println("tidemark: the resident driver at " + address + " does not answer (" + why + "); running the "
        + "command in a JVM of its own (see docs/troubleshooting.md#the-resident-driver)");
  }

  /** Asks the driver how it is: its status line, or why it does not answer. */
  public static String ping(DriverAddress address) throws IOException {
    return ping(address, false);
  }

  /** The same, after a full garbage collection in the driver when {@code gc}: what it holds that it cannot free. */
  public static String ping(DriverAddress address, boolean gc) throws IOException {
    byte[] key = address.key();
    try (SocketChannel ch = address.connect();
         AutoCloseable guard = Wire.deadline(ch, gc ? 60_000 : HELLO_MS, "tidemark-driver-status")) {
      InputStream in = Wire.in(ch);
      OutputStream to = Wire.out(ch);
      Wire.Frame hello = Wire.read(in);
      if (hello.type() != Wire.HELLO || hello.payload().length < 32) {
        throw new IOException("not a tidemark driver");
      }
      Wire.write(to, Wire.AUTH, Wire.proof(key, java.util.Arrays.copyOf(hello.payload(), 32)));
      Wire.Frame welcome = Wire.read(in);
      if (welcome.type() != Wire.WELCOME) {
        throw new IOException(welcome.text());
      }
      Wire.write(to, Wire.PING, gc ? "gc" : "");
      Wire.Frame f = Wire.read(in);
      if (f.type() != Wire.STATUS) {
        throw new IOException(f.text());
      }
      return f.text();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
