package io.tidemark;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What belongs to one command rather than to the JVM: its environment, its log file, its counters, the resources
 * to close when it ends. A JVM that runs one command (the launcher's, spark-submit's) has one scope, {@link #jvm()},
 * and everything behaves as it always did. The resident driver runs many commands in one JVM, each on a thread of
 * its own bound to a scope of its own ({@link #bind}); threads a command starts inherit it.
 *
 * <p>Code that keeps state beyond one call keeps it here ({@link #get}); code that runs on threads a command did not
 * start (the catalog, Iceberg's metrics reporter, Spark's listener bus) finds the scope by its id ({@link #byId}),
 * which the command's Spark session carries in its catalog's options.
 */
public final class CommandScope {
  /** The catalog option that names the scope of the command whose session made the catalog. */
  public static final String OPTION = "tidemark.scope";
  private static final CommandScope JVM = new CommandScope("jvm", System.getenv(), true);
  private static final Map<String, CommandScope> OPEN = new ConcurrentHashMap<>();
  private static final InheritableThreadLocal<CommandScope> CURRENT = new InheritableThreadLocal<>();

  private final String id;
  private final Map<String, String> env;
  private final boolean jvm;
  private final Map<Class<?>, Object> state = new ConcurrentHashMap<>();
  private final Deque<AutoCloseable> closing = new ArrayDeque<>();
  private volatile Path logFile;
  private volatile boolean closed;

  private CommandScope(String id, Map<String, String> env, boolean jvm) {
    this.id = id;
    this.env = Map.copyOf(env);
    this.jvm = jvm;
  }

  /** The scope of a JVM that runs one command: the process's environment. */
  public static CommandScope jvm() {
    return JVM;
  }

  /** A new scope for one command of the resident driver, open until {@link #close}. */
  public static CommandScope open(String id, Map<String, String> env) {
    CommandScope s = new CommandScope(id, env, false);
    if (OPEN.putIfAbsent(id, s) != null) {
      throw new IllegalStateException("a command scope " + id + " is open already");
    }
    return s;
  }

  /** The scope of this thread's command; a thread no command started (or one of a command that ended): the JVM's. */
  public static CommandScope current() {
    CommandScope s = CURRENT.get();
    return s == null || s.closed ? JVM : s;
  }

  /** The open scope of that id, or the JVM's (an unknown or ended command, or none named). */
  public static CommandScope byId(String id) {
    CommandScope s = id == null ? null : OPEN.get(id);
    return s == null ? JVM : s;
  }

  /** The scope named by a catalog's options ({@link #OPTION}), or the JVM's. */
  public static CommandScope of(Map<String, String> options) {
    return byId(options == null ? null : options.get(OPTION));
  }

  /** Binds this scope to the calling thread (and the threads it starts from now on); unbinds with the result. */
  public Binding bind() {
    CommandScope before = CURRENT.get();
    CURRENT.set(this);
    return () -> CURRENT.set(before);
  }

  public String id() {
    return id;
  }

  public boolean isJvm() {
    return jvm;
  }

  /** The environment the command's settings come from: the caller's, never the driver's own. */
  public Map<String, String> env() {
    return env;
  }

  /** The file the libraries' logs of this command go to, if any. */
  public Optional<Path> logFile() {
    return Optional.ofNullable(logFile);
  }

  public void logFile(Path file) {
    this.logFile = file;
  }

  /** This scope's one {@code type}, made on first use: counters, maps, whatever a command keeps beyond one call. */
  @SuppressWarnings("unchecked")
  public <T> T get(Class<T> type, Supplier<? extends T> make) {
    return (T) state.computeIfAbsent(type, k -> make.get());
  }

  /** This scope's {@code type} when one was put there, else null. */
  public <T> T find(Class<T> type) {
    return type.cast(state.get(type));
  }

  public <T> void put(Class<T> type, T value) {
    state.put(type, value);
  }

  /**
   * Closes {@code resource} when the command ends, the last registered first. The JVM's scope keeps nothing: what a
   * one-command JVM opens ends with it.
   */
  public void onClose(AutoCloseable resource) {
    if (jvm) {
      return;
    }
    synchronized (closing) {
      if (closed) {
        closeQuietly(resource);
      } else {
        closing.push(resource);
      }
    }
  }

  public boolean isClosed() {
    return closed;
  }

  /** Ends the command: closes what it registered, forgets its state; threads still bound see the JVM's scope. */
  public void close() {
    if (jvm) {
      return;
    }
    synchronized (closing) {
      closed = true;
      while (!closing.isEmpty()) {
        closeQuietly(closing.pop());
      }
    }
    state.clear();
    OPEN.remove(id, this);
  }

  /** How many commands are open now (the driver's status, and a soak's check that none is left behind). */
  public static int openScopes() {
    return OPEN.size();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // what a command left behind must not fail the next one: the driver's log has it
      org.slf4j.LoggerFactory.getLogger(CommandScope.class).warn("closing {} at the end of a command", c, e);
    }
  }

  /** The end of a {@link #bind}. */
  public interface Binding extends AutoCloseable {
    @Override
    void close();
  }
}
