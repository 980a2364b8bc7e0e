package io.tidemark.lakehouse;

import io.tidemark.config.TidemarkConfig;
import io.tidemark.lakehouse.spark.SparkSessions;
import io.tidemark.lakehouse.storage.Storage;
import io.tidemark.services.Endpoints;
import io.tidemark.services.Services;
import org.apache.spark.sql.SparkSession;

/**
 * What a command works with: the configuration, the services it reaches (started when embedded), and, created
 * on first use, the object store client and the SparkSession.
 */
public final class Lakehouse implements AutoCloseable {
  private final TidemarkConfig config;
  private final Endpoints endpoints;
  private final String appName;
  private final String author;
  private Storage storage;
  private SparkSession spark;

  private Lakehouse(TidemarkConfig config, Endpoints endpoints, String appName, String author, SparkSession spark) {
    this.config = config;
    this.endpoints = endpoints;
    this.appName = appName;
    this.author = author;
    this.spark = spark;
  }

  /** Brings the services up (or checks the external ones) and returns the lakehouse they make. */
  public static Lakehouse open(TidemarkConfig config, String appName) {
    return open(config, appName, SparkSessions.AUTHOR);
  }

  /** The same, with {@code author} on the Nessie commits of this JVM's catalog. */
  public static Lakehouse open(TidemarkConfig config, String appName, String author) {
    return new Lakehouse(config, new Services(config).ensureUp(), appName, author, null);
  }

  /** A lakehouse on a SparkSession that already exists, e.g. one shared by a test suite. */
  public static Lakehouse attach(TidemarkConfig config, Endpoints endpoints, SparkSession spark) {
    return new Lakehouse(config, endpoints, "tidemark", SparkSessions.AUTHOR, spark);
  }

  public TidemarkConfig config() {
    return config;
  }

  public Endpoints endpoints() {
    return endpoints;
  }

  public synchronized Storage storage() {
    if (storage == null) {
      storage = Storage.connect(config, endpoints);
    }
    return storage;
  }

  public synchronized SparkSession spark() {
    if (spark == null) {
      spark = SparkSessions.getOrCreate(config, endpoints, appName, author);
    }
    return spark;
  }

  /** Closes the storage client; the SparkSession is left to its owner (the JVM, or the test suite). */
  @Override
  public synchronized void close() {
    if (storage != null) {
      storage.close();
      storage = null;
    }
  }
}
