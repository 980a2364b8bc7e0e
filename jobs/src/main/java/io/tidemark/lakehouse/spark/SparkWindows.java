package io.tidemark.lakehouse.spark;

import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;

import io.tidemark.core.Times;
import java.time.Duration;
import java.time.Instant;
import org.apache.spark.sql.Column;

/**
 * The core's event-time windows ({@link io.tidemark.core.Windows}) in Spark, for plans that work out windows
 * themselves (the restatement in Spark, the lateness report): in microseconds, as the counts stream's {@code window()}
 * floors them. Tested equal to the core's rule.
 */
public final class SparkWindows {
  private SparkWindows() {}

  /** The start of the window an event time falls in. */
  public static Column start(Column ts, Duration window) {
    Column micros = call_function("unix_micros", ts);
    return call_function("timestamp_micros", micros.minus(pmod(micros, lit(micros(window)))));
  }

  /** The same, in Spark SQL, of the SQL expression {@code ts}. */
  public static String startSql(String ts, Duration window) {
    return "timestamp_micros(unix_micros(" + ts + ") - pmod(unix_micros(" + ts + "), " + micros(window) + "))";
  }

  /** Whether the window starting at {@code start} is final under {@code watermark}. */
  public static Column isFinal(Column start, Duration window, Instant watermark) {
    return call_function("unix_micros", start).plus(micros(window)).leq(Times.micros(watermark));
  }

  private static long micros(Duration d) {
    return d.toNanos() / 1_000;
  }
}
