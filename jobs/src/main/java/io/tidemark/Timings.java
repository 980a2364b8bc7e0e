package io.tidemark;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where a job's time goes, step by step, for the benchmarks: the jobs name their steps, whoever starts them decides
 * whether they are kept. Nothing is kept unless a benchmark asks ({@link Recorder}).
 */
public interface Timings {
  /** Keeps nothing: what a job gets unless told otherwise. */
  Timings NONE = (name, value) -> { };

  /** Step {@code name} took {@code value} (milliseconds, or a count such as files read). */
  void put(String name, long value);

  /** Runs {@code step} and puts its milliseconds under {@code name}. */
  default <T> T time(String name, Supplier<T> step) {
    long t0 = System.nanoTime();
    T out = step.get();
    put(name, (System.nanoTime() - t0) / 1_000_000);
    return out;
  }

  /** Keeps every step's value, the first put of a name first; safe to share between threads. */
  final class Recorder implements Timings {
    private final Map<String, Long> values = Collections.synchronizedMap(new LinkedHashMap<>());

    @Override
    public void put(String name, long value) {
      values.put(name, value);
    }

    /** What was kept, in the order the names came. */
    public Map<String, Long> values() {
      synchronized (values) {
        return new LinkedHashMap<>(values);
      }
    }
  }
}
