package io.tidemark.core;

import java.time.Duration;
import java.time.Instant;

/**
 * Event-time windows of one size, aligned on the epoch (as Spark's {@code window()} aligns them): which window an
 * event falls in, and when a window is final. A window is final once the watermark has reached its end: the counts
 * stream emits it then, and drops what comes for it later; the restatement corrects only final windows, and the
 * publish checks that every window staged is final under the watermark its commit carries.
 */
public record Windows(Duration size) {
  public Windows {
    if (size.isNegative() || size.isZero() || size.toNanos() % 1_000 != 0) {
      throw new IllegalArgumentException("a window is a positive whole number of microseconds, not " + size);
    }
  }

  private long sizeMicros() {
    return size.toNanos() / 1_000;
  }

  /** The start of the window {@code eventTime} falls in. */
  public Instant start(Instant eventTime) {
    long t = Times.micros(eventTime);
    return Times.ofMicros(t - Math.floorMod(t, sizeMicros()));
  }

  /** The end of the window starting at {@code start} (exclusive). */
  public Instant end(Instant start) {
    return start.plus(size);
  }

  /** Whether {@code start} is where a window starts. */
  public boolean isStart(Instant start) {
    return Math.floorMod(Times.micros(start), sizeMicros()) == 0;
  }

  /** Whether the window starting at {@code start} is final under {@code watermark}: its end is at or before it. */
  public boolean isFinal(Instant start, Instant watermark) {
    return watermark != null && !end(start).isAfter(watermark);
  }
}
