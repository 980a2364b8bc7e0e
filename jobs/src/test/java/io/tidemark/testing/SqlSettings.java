package io.tidemark.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Spark SQL settings a test changes on the shared session, put back as they were when it closes:
 * {@code try (SqlSettings s = SqlSettings.saving(spark, KEY)) { s.set(KEY, "7"); ... }}.
 */
public final class SqlSettings implements AutoCloseable {
  private final SparkSession spark;
  private final Map<String, String> saved = new LinkedHashMap<>();

  private SqlSettings(SparkSession spark) {
    this.spark = spark;
  }

  public static SqlSettings saving(SparkSession spark, String... keys) {
    SqlSettings s = new SqlSettings(spark);
    for (String k : keys) {
      s.saved.put(k, spark.conf().get(k));
    }
    return s;
  }

  /** The value a saved setting had. */
  public String original(String key) {
    return saved.get(key);
  }

  public void set(String key, String value) {
    if (!saved.containsKey(key)) {
      throw new IllegalArgumentException(key + " was not saved: name it in SqlSettings.saving");
    }
    spark.conf().set(key, value);
  }

  @Override
  public void close() {
    saved.forEach((k, v) -> spark.conf().set(k, v));
  }
}
