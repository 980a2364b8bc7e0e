package io.tidemark.config;


/**
 * Every setting of tidemark: the environment variable that sets it, the flag that overrides it, and its
 * default. The command line builds its global options from this list, and {@code tidemark config} prints it,
 * so a setting is documented once.
 */
public enum Setting {
  HOME("TIDEMARK_HOME", "--home", "<dir>",
      "Data directory of the embedded services, checkpoints and logs.", "./.tidemark"),
  NESSIE_URI("TIDEMARK_NESSIE_URI", "--nessie-uri", "<url>",
      "Nessie REST API v2 (e.g. http://nessie:19120/api/v2). Unset: the embedded Nessie server.", null),
  ICEBERG_REST_URI("TIDEMARK_ICEBERG_REST_URI", "--iceberg-rest-uri", "<url>",
      "Nessie's Iceberg REST catalog, for other engines (PyIceberg, Trino, Spark type=rest). Unset: the Nessie "
          + "server's /iceberg/.", null),
  NESSIE_REF("TIDEMARK_NESSIE_REF", "--nessie-ref", "<ref>",
      "Nessie branch (or tag) readers see: sql, check, report and other engines read it. As a branch it is written "
          + "only by `tidemark publish`, in whole audited arrivals.", "main"),
  STAGING_BRANCH("TIDEMARK_STAGING_BRANCH", "--staging-branch", "<branch>",
      "Nessie branch the streams, the restatement and compaction write to (made from the published branch by "
          + "`bootstrap`); `tidemark publish` checks it and makes its head the published branch's.", "ingest"),
  NESSIE_PORT("TIDEMARK_NESSIE_PORT", "--nessie-port", "<port>",
      "Port of the embedded Nessie server (API and UI) on 127.0.0.1.", "19120"),
  NESSIE_MANAGEMENT_PORT("TIDEMARK_NESSIE_MANAGEMENT_PORT", "--nessie-management-port", "<port>",
      "Management (health, metrics) port of the embedded Nessie server.", "19121"),
  NESSIE_JAVA("TIDEMARK_NESSIE_JAVA", "--nessie-java", "<path>",
      "Java 21+ (a JDK home or a java binary) for the embedded Nessie server. Unset: searched.", null),
  S3_ENDPOINT("TIDEMARK_S3_ENDPOINT", "--s3-endpoint", "<url>",
      "S3 API endpoint (e.g. http://minio:9000). Unset: the embedded S3 server.", null),
  S3_PORT("TIDEMARK_S3_PORT", "--s3-port", "<port>",
      "Port of the embedded S3 server on 127.0.0.1.", "19000"),
  S3_REGION("TIDEMARK_S3_REGION", "--s3-region", "<region>", "S3 region.", "us-east-1"),
  S3_ACCESS_KEY("TIDEMARK_S3_ACCESS_KEY", null, null,
      "S3 access key; required with TIDEMARK_S3_ENDPOINT (the embedded server generates its own).", null),
  S3_SECRET_KEY("TIDEMARK_S3_SECRET_KEY", null, null,
      "S3 secret key; required with TIDEMARK_S3_ENDPOINT. Never printed.", null),
  S3_PATH_STYLE("TIDEMARK_S3_PATH_STYLE", "--s3-path-style", "<bool>",
      "Path-style S3 addressing (true for MinIO and the embedded server).", "true"),
  LANDING_BUCKET("TIDEMARK_LANDING_BUCKET", "--landing-bucket", "<bucket>",
      "Bucket of the landing zone, where arrivals of JSON lines are written.", "tidemark-landing"),
  WAREHOUSE_BUCKET("TIDEMARK_WAREHOUSE_BUCKET", "--warehouse-bucket", "<bucket>",
      "Bucket of the Iceberg warehouse.", "tidemark-warehouse"),
  WAREHOUSE("TIDEMARK_WAREHOUSE", "--warehouse", "<uri>",
      "Iceberg warehouse location. Unset: s3://<warehouse bucket>/warehouse.", null),
  CHECKPOINT_ROOT("TIDEMARK_CHECKPOINT_ROOT", "--checkpoint-root", "<path>",
      "Where streaming checkpoints live (a local path or s3a://...). Unset: <home>/checkpoints.", null),
  SPARK_MASTER("TIDEMARK_SPARK_MASTER", "--spark-master", "<master>",
      "Spark master for the jobs.", "local[2]"),
  SHUFFLE_PARTITIONS("TIDEMARK_SHUFFLE_PARTITIONS", "--shuffle-partitions", "<n>",
      "Spark's shuffle partitions (spark.sql.shuffle.partitions); frozen into a streaming checkpoint at its first "
          + "run.", "4"),
  STATE_STORE("TIDEMARK_STATE_STORE", "--state-store", "<store>",
      "State store of the stateful streams, hdfs (in memory) or rocksdb; frozen into a checkpoint at its first run.",
      "hdfs"),
  RETAIN_BATCHES("TIDEMARK_RETAIN_BATCHES", "--retain-batches", "<n>",
      "Micro-batches of checkpoint history (offsets, commits, state versions) kept; a run makes about two.",
      "6"),
  PIPELINE("TIDEMARK_PIPELINE", "--pipeline", "<file>",
      "The pipeline file (YAML, docs/pipeline.md): its feeds, their tables, streams and watermarks. Unset: the "
          + "seed's, built in (pipelines/seed.yml).", null),
  SCOPE("TIDEMARK_SCOPE", "--scope", "<namespace>",
      "Every table of the pipeline in this one namespace, as <namespace>.<its namespace>_<its name>: pipelines side "
          + "by side on one catalog (the tests and benchmarks run so). Unset: the tables as the file names them.",
      null);

  private final String env;
  private final String flag;
  private final String label;
  private final String description;
  private final String defaultValue;

  Setting(String env, String flag, String label, String description, String defaultValue) {
    this.env = env;
    this.flag = flag;
    this.label = label;
    this.description = description;
    this.defaultValue = defaultValue;
  }

  public String env() {
    return env;
  }

  /** The overriding flag, or null for secrets, which are only taken from the environment. */
  public String flag() {
    return flag;
  }

  public String label() {
    return label;
  }

  public String description() {
    return description;
  }

  /** The default, or null when the setting has none (optional, or derived from others). */
  public String defaultValue() {
    return defaultValue;
  }

  public boolean isSecret() {
    return this == S3_SECRET_KEY || this == S3_ACCESS_KEY;
  }

  /** How an error names the setting: the variable, and the flag when there is one. */
  public String display() {
    return flag == null ? env : env + " (" + flag + ")";
  }
}
