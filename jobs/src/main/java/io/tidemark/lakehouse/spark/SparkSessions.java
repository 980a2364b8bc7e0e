package io.tidemark.lakehouse.spark;

import io.tidemark.CommandScope;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.fence.CheckpointFiles;
import io.tidemark.services.Endpoints;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Builds the SparkSession of every job: the Nessie catalog (Iceberg's NessieCatalog, S3FileIO) as Spark's
 * default catalog so that {@code ns.table} needs no prefix, the Iceberg and Nessie SQL extensions, and s3a for
 * the landing zone and checkpoints on S3.
 */
public final class SparkSessions {
  /** The name of the Nessie catalog in Spark. */
  public static final String CATALOG = "nessie";

  private SparkSessions() {}

  /** The author of the Nessie commits this JVM's catalog makes, unless a job says otherwise. */
  public static final String AUTHOR = "tidemark";
  /**
   * The published branch, in the session's configuration: a writer's catalog works on the staging branch, and a
   * stream that misses a table there says whether readers have it.
   */
  public static final String PUBLISHED_REF = "spark.tidemark.published-ref";

  /** The session of this JVM, created with tidemark's settings if there is none yet. */
  public static SparkSession getOrCreate(TidemarkConfig config, Endpoints endpoints, String appName) {
    return getOrCreate(config, endpoints, appName, AUTHOR);
  }

  /**
   * With {@code author} on every Nessie commit of the catalog (it is read once, when the catalog starts). In the
   * resident driver the command's scope holds a {@link Source}, which gives each command a session of its own.
   */
  public static SparkSession getOrCreate(TidemarkConfig config, Endpoints endpoints, String appName, String author) {
    Map<String, String> conf = conf(config, endpoints);
    conf.put("spark.sql.catalog." + CATALOG + ".user", author);
    Source source = CommandScope.current().find(Source.class);
    SparkSession spark;
    if (source != null) {
      spark = source.session(conf, appName);
    } else {
      SparkSession.Builder builder = SparkSession.builder().appName(appName);
      conf.forEach(builder::config);
      spark = builder.getOrCreate();
    }
    Work.watch(spark);
    return spark;
  }

  /**
   * Whether a setting of {@link #conf} belongs to the SparkContext (the JVM's one, made once: where it runs, the
   * SQL extensions, the scheduler, the UI, s3a's Hadoop settings) rather than to a session, which the resident
   * driver makes anew for every command.
   */
  public static boolean isContextSetting(String key) {
    return key.equals("spark.master") || key.equals("spark.sql.extensions") || key.startsWith("spark.ui.")
        || key.equals("spark.redaction.regex") || key.startsWith("spark.scheduler.")
        || key.startsWith("spark.driver.") || key.startsWith("spark.hadoop.");
  }

  /** Where a command's session comes from when the JVM is not the command's own: the resident driver. */
  public interface Source {
    /** The command's session with these settings ({@link #conf} and the catalog's author). */
    SparkSession session(Map<String, String> conf, String appName);
  }

  /**
   * Where the job runs: under spark-submit its {@code --master} (spark-submit hands it to the driver as the system
   * property spark.master), else TIDEMARK_SPARK_MASTER. A session setting would override spark-submit's, and a
   * job submitted to a cluster would then quietly run in the driver alone.
   */
  static String master(TidemarkConfig config) {
    String submitted = System.getProperty("spark.master");
    return submitted == null || submitted.isBlank() ? config.sparkMaster() : submitted;
  }

  /** Every Spark setting tidemark makes, in one place. */
  public static Map<String, String> conf(TidemarkConfig config, Endpoints endpoints) {
    Map<String, String> c = new LinkedHashMap<>();
    String master = master(config);
    c.put("spark.master", master);
    c.put("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,"
        + "org.projectnessie.spark.extensions.NessieSparkSessionExtensions");
    c.put("spark.sql.defaultCatalog", CATALOG);
    // event time is compared across Spark, DuckDB and the files: one time zone everywhere
    c.put("spark.sql.session.timeZone", "UTC");
    c.put("spark.sql.shuffle.partitions", Integer.toString(config.shufflePartitions()));
    c.put("spark.ui.enabled", "false");
    c.put("spark.redaction.regex", "(?i)secret|password|token|access[.-]key");
    // a listener slower than a second (any of them, on a busy machine) has Spark log the event whole at INFO, and a
    // job's start event carries every setting unredacted, the S3 keys among them: seen in a spark-submit's log
    c.put("spark.scheduler.listenerbus.logSlowEvent", "false");
    c.put("spark.ui.showConsoleProgress", "false");
    // `stream all` runs its streams at once, each in a scheduler pool of its own (made when first named): a large
    // arrival's jobs in one stream do not queue the others' small ones
    c.put("spark.scheduler.mode", "FAIR");
    // streaming: both are frozen into a checkpoint at its first run
    c.put("spark.sql.streaming.stateStore.providerClass", "rocksdb".equals(config.stateStore())
        ? "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
        : "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider");
    c.put("spark.sql.streaming.minBatchesToRetain", Integer.toString(config.retainBatches()));
    // availableNow runs are short: snapshot and clean state files up often, or old ones pile up
    c.put("spark.sql.streaming.stateStore.maintenanceInterval", "500ms");
    c.put("spark.sql.streaming.stateStore.minDeltasForSnapshot", "2");
    // the file source's log of seen files: compact often, and drop compacted entries soon (one query reads it)
    c.put("spark.sql.streaming.fileSource.log.compactInterval", "5");
    c.put("spark.sql.streaming.fileSource.log.cleanupDelay", "2s");
    // the trailing no-data batch emits the windows a run's watermark finalized, in that same run
    c.put("spark.sql.streaming.noDataMicroBatches.enabled", "true");
    if (!config.checkpointRoot().contains("://")) {
      // on a local disk Spark's default (Hadoop's FileContext) forks `readlink` for every rename: each offset,
      // commit and state file, 3-5 per task and batch, about a tenth of a small arrival's time; the FileSystem API
      // renames with one system call, as atomic on a local disk
      c.put(CheckpointFiles.SETTING, CheckpointFiles.FILE_SYSTEM_MANAGER);
      // and Hadoop's local file system forks `chmod` for every file and directory it creates, with its checksum:
      // about a hundred per small arrival; this one sets the same modes in-process
      c.put("spark.hadoop.fs.file.impl", InProcessLocalFileSystem.class.getName());
    }
    if (master.startsWith("local")) {
      c.put("spark.driver.host", "127.0.0.1");
      c.put("spark.driver.bindAddress", "127.0.0.1");
    }

    String cat = "spark.sql.catalog." + CATALOG;
    c.put(cat, "org.apache.iceberg.spark.SparkCatalog");
    // Iceberg's NessieCatalog, whose commits carry tidemark's author and message into the Nessie log
    c.put(cat + ".catalog-impl", io.tidemark.fence.NessieCatalog.class.getName());
    c.put(cat + ".uri", endpoints.nessieApi().toString());
    // Nessie Spark extensions 0.99 talk to server 0.108 only through API v2
    c.put(cat + ".client-api-version", "2");
    c.put(cat + ".ref", config.nessieRef());
    c.put(cat + "." + io.tidemark.fence.NessieCatalog.REF_SETTING, (config.isWriting()
        ? io.tidemark.config.Setting.STAGING_BRANCH : io.tidemark.config.Setting.NESSIE_REF).display());
    c.put(PUBLISHED_REF, config.publishedRef());
    c.put(cat + ".warehouse", config.warehouse());
    // foreachBatch runs in a cloned session with its own cache: never read a stale table version
    c.put(cat + ".cache-enabled", "false");
    // Iceberg's own commit and planning times per table, for the run reports and the latency benchmark
    c.put(cat + ".metrics-reporter-impl", "io.tidemark.stream.CommitTimings");
    c.put(cat + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    c.put(cat + ".s3.endpoint", endpoints.s3Endpoint().toString());
    c.put(cat + ".s3.path-style-access", Boolean.toString(config.s3PathStyle()));
    c.put(cat + ".s3.access-key-id", endpoints.s3AccessKey().reveal());
    c.put(cat + ".s3.secret-access-key", endpoints.s3SecretKey().reveal());
    c.put(cat + ".client.region", config.s3Region());

    String s3a = "spark.hadoop.fs.s3a.";
    c.put(s3a + "endpoint", endpoints.s3Endpoint().toString());
    c.put(s3a + "endpoint.region", config.s3Region());
    c.put(s3a + "path.style.access", Boolean.toString(config.s3PathStyle()));
    c.put(s3a + "connection.ssl.enabled", Boolean.toString("https".equals(endpoints.s3Endpoint().getScheme())));
    c.put(s3a + "aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    c.put(s3a + "access.key", endpoints.s3AccessKey().reveal());
    c.put(s3a + "secret.key", endpoints.s3SecretKey().reveal());
    c.put(s3a + "impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    // fail within seconds when S3 is gone instead of retrying for minutes
    c.put(s3a + "attempts.maximum", "3");
    c.put(s3a + "retry.limit", "3");
    c.put(s3a + "connection.establish.timeout", "5000");
    return c;
  }
}
