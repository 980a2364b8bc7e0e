package io.tidemark.lakehouse.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;

import io.tidemark.core.Aggregation;
import io.tidemark.core.Measure;
import org.apache.spark.sql.Column;

/**
 * The measures of a windowed aggregate ({@link Measure}) as Spark's aggregate functions, for the stream and the
 * restatement in Spark alike: a count counts rows, a sum, minimum and maximum leave nulls out, each in the type the
 * measure declares (Spark's own: a sum of integers a long, of a decimal(p,s) a decimal(p+10,s)).
 */
public final class SparkAggregates {
  private SparkAggregates() {}

  public static Column[] measures(Aggregation a) {
    return a.measures().stream().map(SparkAggregates::measure).toArray(Column[]::new);
  }

  public static Column measure(Measure m) {
    Column v = switch (m.function()) {
      case COUNT -> count(lit(1));
      case SUM -> sum(col(m.of().name()));
      case MIN -> min(col(m.of().name()));
      case MAX -> max(col(m.of().name()));
    };
    return v.cast(m.type().sql()).as(m.name());
  }
}
