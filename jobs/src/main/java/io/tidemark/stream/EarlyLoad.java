package io.tidemark.stream;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A value loaded ahead, in a thread of its own, for whoever asks for it later; when that early load failed, the
 * first to ask loads it again (and the others wait for that one), with the early failure in the log.
 *
 * <p>Why not just the future: a failed {@link CompletableFuture} hands every caller the very same exception object.
 * {@code stream all} asks from each of its runs, so one failed early load (the catalog out of reach for a moment
 * while five streams start at once) failed every run with one exception, and attaching those failures to one
 * another threw "Self-suppression not permitted", which was all the user saw.
 */
final class EarlyLoad<T> {
  private static final Logger LOG = LoggerFactory.getLogger(EarlyLoad.class);

  private final String what;
  private final Supplier<T> load;
  private final CompletableFuture<T> early;
  private T again;

  /** Starts loading {@code what} at once, in a daemon thread named for it. */
  EarlyLoad(String what, Supplier<T> load) {
    this.what = what;
    this.load = load;
    this.early = CompletableFuture.supplyAsync(load, task -> {
      Thread t = new Thread(task, "tidemark-load-" + what);
      t.setDaemon(true);
      t.start();
    });
  }

  /** The value: the early load's, or when that failed, one loaded now (a failure of which is this call's own). */
  synchronized T get() {
    try {
      return early.join();
    } catch (CompletionException e) {
      if (again == null) {
        LOG.warn("loading {} ahead failed; loading it again", what, e.getCause());
        again = load.get();
      }
      return again;
    }
  }
}
