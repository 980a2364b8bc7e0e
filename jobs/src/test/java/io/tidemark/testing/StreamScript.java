package io.tidemark.testing;

import io.tidemark.land.Arrival;
import io.tidemark.stream.RunReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A test about a sequence of arrivals, written as the script it is (as Spark's StreamTest writes one): an arrival
 * lands, the streams run, a run crashes or is killed, the streams start again, and what must hold then is expected.
 * The streams are named once: streams run in this JVM (the reports of every run kept, in order), or a tidemark
 * command (the output of every run kept). Each action is a numbered step; when one fails, the error lists the steps
 * so far and marks the one that failed.
 */
public final class StreamScript {
  /** A hang guard for a run that is to be killed, not a speed assertion. */
  private static final long KILL_WAIT_SECONDS = 180;

  private final Consumer<Arrival> lands;
  private final Supplier<List<RunReport>> streams;
  private final Map<String, String> env;
  private final List<String> command;
  private final List<List<RunReport>> runs = new ArrayList<>();
  private final List<Cli.Result> outputs = new ArrayList<>();
  private final List<String> steps = new ArrayList<>();

  private StreamScript(Consumer<Arrival> lands, Supplier<List<RunReport>> streams, Map<String, String> env,
      List<String> command) {
    this.lands = lands;
    this.streams = streams;
    this.env = env;
    this.command = command;
  }

  /**
   * A script whose arrivals land with {@code lands} (e.g. {@code landing::land}, or into a local directory) and
   * whose run step runs {@code streams} in this JVM, one after the other.
   */
  @SafeVarargs
  public static StreamScript of(Consumer<Arrival> lands, Supplier<RunReport>... streams) {
    List<Supplier<RunReport>> each = List.of(streams);
    return new StreamScript(lands, () -> each.stream().map(Supplier::get).toList(), null, null);
  }

  /**
   * A script whose streams are the command {@code tidemark args} with {@code env}: it runs in a JVM of its own, as
   * scripts and Airflow run it, and so can crash ({@link #crash}) or be killed ({@link #kill}); {@link #restart}
   * runs it again.
   */
  public static StreamScript command(Consumer<Arrival> lands, Map<String, String> env, String... args) {
    return new StreamScript(lands, null, Map.copyOf(env), List.of(args));
  }

  /** What a test does at a step: expectations, a change of setting; may throw what a test method throws. */
  @FunctionalInterface
  public interface Step<T> {
    void accept(T value) throws Exception;
  }

  /**
   * When to kill a run: {@link #arm} is called before the run starts (e.g. to note the last batch a checkpoint
   * committed) and gives what is true once it is time.
   */
  @FunctionalInterface
  public interface Trigger {
    BooleanSupplier arm() throws Exception;
  }

  /** The arrival lands. */
  public StreamScript arrive(Arrival arrival) {
    return step("arrival " + arrival.number() + " lands", s -> lands.accept(arrival));
  }

  /** The arrivals land, one after the other, before any run. */
  public StreamScript arrive(List<Arrival> arrivals) {
    arrivals.forEach(this::arrive);
    return this;
  }

  /** The streams run once: in this JVM, or the command in a JVM of its own, which must succeed. */
  public StreamScript run() {
    if (streams != null) {
      return step("the streams run", s -> runs.add(streams.get()));
    }
    return step(commandLine() + " runs in a JVM of its own", s -> succeeds(Cli.run(env, args())));
  }

  /**
   * The command runs in a JVM of its own with the crash hook {@code hook} (see {@code CrashHook}), which
   * halts that JVM at that point: it must end with the halt's exit code.
   */
  public StreamScript crash(String hook) {
    needsCommand();
    return step(commandLine() + " crashes at " + hook, s -> {
      Cli.Result r = Cli.run(Cli.crashing(env, hook), args());
      outputs.add(r);
      if (r.exitCode() != 137) {
        throw new AssertionError("the hook " + hook + " halts the JVM (exit 137): " + r);
      }
    });
  }

  /**
   * The command starts in a JVM of its own and gets a SIGKILL {@code when} the trigger says so (or once it has ended,
   * or after 180 s).
   */
  public StreamScript kill(String when, Trigger trigger) {
    needsCommand();
    return step(commandLine() + " is killed (SIGKILL) " + when, s -> {
      BooleanSupplier time = trigger.arm();
      Process p = Cli.start(env, args());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(KILL_WAIT_SECONDS);
      while (!time.getAsBoolean() && p.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      boolean midRun = p.isAlive();
      p.destroyForcibly().waitFor();
      System.out.println("[script] " + commandLine() + (midRun ? " killed " + when : " had ended before the kill"));
    });
  }

  /**
   * The streams start again, after a crash, a kill or a change to their state: the command once more, in this JVM
   * ({@link Cli#inProcess}; a recovery has only the checkpoints and the tables to go on), which must succeed.
   */
  public StreamScript restart() {
    needsCommand();
    return step(commandLine() + " restarts (in this JVM)", s -> succeeds(Cli.inProcess(env, args())));
  }

  /** For each arrival in turn: it lands, the streams run, then {@code after} (expectations, changes). */
  public StreamScript eachArrival(List<Arrival> arrivals, Step<Arrival> after) {
    for (Arrival a : arrivals) {
      arrive(a).run();
      step("after arrival " + a.number(), s -> after.accept(a));
    }
    return this;
  }

  public StreamScript eachArrival(List<Arrival> arrivals) {
    return eachArrival(arrivals, a -> { });
  }

  /** Something that happens between the steps, e.g. a checkpoint file lost. */
  public StreamScript then(String what, Step<StreamScript> action) {
    return step(what, action);
  }

  /** What must hold at this point of the script. */
  public StreamScript expect(String what, Step<StreamScript> check) {
    return step("expect " + what, check);
  }

  /** The latest run of the command printed a line that starts with {@code start} and contains {@code says}. */
  public StreamScript expectLine(String start, String says) {
    return expect("a line '" + start + "...' that says '" + says + "'", s -> {
      String line = output().out().lines().filter(l -> l.startsWith(start)).findFirst().orElse("");
      if (!line.contains(says)) {
        throw new AssertionError("the line '" + start + "...' does not say '" + says + "': " + output());
      }
    });
  }

  /** The reports of the k-th run (from 1), one per stream in the order given. */
  public List<RunReport> run(int k) {
    return runs.get(k - 1);
  }

  /** The report of the k-th run of a single-stream script. */
  public RunReport report(int k) {
    return run(k).get(0);
  }

  /** The report of the latest run, of the i-th stream (from 0). */
  public RunReport last(int stream) {
    return runs.get(runs.size() - 1).get(stream);
  }

  public List<List<RunReport>> runs() {
    return runs;
  }

  /** The exit code and output of the command's latest run (crashed, killed runs aside). */
  public Cli.Result output() {
    if (outputs.isEmpty()) {
      throw new IllegalStateException("the command has not run yet");
    }
    return outputs.get(outputs.size() - 1);
  }

  private void succeeds(Cli.Result r) {
    outputs.add(r);
    if (r.exitCode() != 0) {
      throw new AssertionError(commandLine() + " failed: " + r);
    }
  }

  private StreamScript step(String what, Step<StreamScript> action) {
    steps.add(what);
    try {
      action.accept(this);
    } catch (Exception | AssertionError e) {
      throw new AssertionError(where() + "\n" + e, e);
    }
    return this;
  }

  /** The steps so far, the last one marked: it failed. */
  private String where() {
    StringBuilder out = new StringBuilder("the stream script failed at step " + steps.size() + ":");
    for (int i = 0; i < steps.size(); i++) {
      out.append(String.format("%n%s%3d. %s", i == steps.size() - 1 ? "=>" : "  ", i + 1, steps.get(i)));
    }
    return out.toString();
  }

  private void needsCommand() {
    if (command == null) {
      throw new IllegalStateException("a script of streams in this JVM has no command to crash, kill or restart");
    }
  }

  private String[] args() {
    return command.toArray(String[]::new);
  }

  private String commandLine() {
    return command == null ? "the streams" : "tidemark " + String.join(" ", command);
  }
}
