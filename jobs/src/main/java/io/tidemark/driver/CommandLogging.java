package io.tidemark.driver;

import io.tidemark.CommandScope;
import io.tidemark.lakehouse.spark.Work;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import org.apache.spark.TaskContext;

/**
 * Every command's libraries' logs in its own file, as in a JVM of its own, though the driver runs many commands at
 * once: a log line goes to the file of the command whose thread (or whose Spark task, in a local driver) wrote it,
 * and what no command wrote (Spark's scheduler, the driver itself) to the driver's own log.
 *
 * <p>With slf4j-simple (the driver as {@code java -jar}) the logs go to {@code System.out}, which is routed here; with
 * log4j 2 (the driver under spark-submit) an appender of the root logger routes them ({@link Log4jRouting}). What a
 * command's threads write to {@code System.err} itself goes to the caller's stderr.
 */
public final class CommandLogging {
  /** Where one command's logs and stderr go. */
  record Sink(OutputStream log, OutputStream err) {}

  private CommandLogging() {}

  /** Routes the JVM's logs per command from now on; must run before the first logger is made. */
  public static void install(Optional<Path> driverLog, boolean simpleLogging) throws IOException {
    PrintStream err = System.err;
    if (simpleLogging) {
      OutputStream own = driverLog.isPresent() ? new FileOutputStream(driverLog.get().toFile(), true) : err;
      System.setProperty("org.slf4j.simpleLogger.logFile", "System.out");
      System.setOut(new PrintStream(new Routed(own, Sink::log), true));
    } else {
      Log4jRouting.attach();
    }
    System.setErr(new PrintStream(new Routed(err, Sink::err), true));
  }

  /** The sink of the command this thread works for: its own, or that of the Spark task it runs. */
  static Sink current() {
    CommandScope scope = CommandScope.current();
    if (scope.isJvm()) {
      TaskContext task = TaskContext.get();
      if (task != null) {
        scope = Work.scopeOfTags(task.getLocalProperty("spark.job.tags"));
      }
    }
    return scope.isJvm() ? null : scope.find(Sink.class);
  }

  /** An output stream that writes to the current command's sink, or to the driver's own. */
  private static final class Routed extends OutputStream {
    private final OutputStream own;
    private final Function<Sink, OutputStream> part;

    Routed(OutputStream own, Function<Sink, OutputStream> part) {
      this.own = own;
      this.part = part;
    }

    private OutputStream target() {
      Sink s = current();
      return s == null ? own : part.apply(s);
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      OutputStream t = target();
      try {
        t.write(b, off, len);
      } catch (IOException e) {
        if (t == own) {
          throw e;
        }
        // the command's caller went away (its file or connection closed): the line goes to the driver's own log
        own.write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      target().flush();
    }
  }
}
