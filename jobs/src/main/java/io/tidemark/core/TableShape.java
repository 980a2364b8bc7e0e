package io.tidemark.core;

import java.util.List;

/**
 * What a table of the pipeline holds, whatever it is named: its columns, built from the feeds' declarations, the
 * partition transforms (Spark SQL's, over those columns) and what it is for.
 */
public record TableShape(Schema columns, List<String> partitioning, String comment) {
  public TableShape {
    partitioning = List.copyOf(partitioning);
  }

  /** Iceberg's {@code days(column)}. */
  static String days(Column c) {
    return "days(" + c.name() + ")";
  }

  /** Iceberg's {@code bucket(n, column)}. */
  static String bucket(int n, Column c) {
    return "bucket(" + n + ", " + c.name() + ")";
  }
}
