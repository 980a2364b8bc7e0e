package io.tidemark.config;

import java.time.Duration;

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
  COUNTS_WATERMARK("TIDEMARK_COUNTS_WATERMARK", "--counts-watermark", "<duration>",
      "Watermark delay of the windowed counts: how late an event may be and still count.", Defaults.COUNTS_WATERMARK),
  COUNTS_WINDOW("TIDEMARK_COUNTS_WINDOW", "--counts-window", "<duration>",
      "Event-time window of the counts.", Defaults.COUNTS_WINDOW),
  DEDUP_WATERMARK("TIDEMARK_DEDUP_WATERMARK", "--dedup-watermark", "<duration>",
      "Watermark delay of the dedup: how long an event_id is remembered.", Defaults.DEDUP_WATERMARK),
  SCD2_WATERMARK("TIDEMARK_SCD2_WATERMARK", "--scd2-watermark", "<duration>",
      "Watermark delay of the SCD2 stream: a change later than this is left to the restatement.",
      Defaults.SCD2_WATERMARK),
  STATE_STORE("TIDEMARK_STATE_STORE", "--state-store", "<store>",
      "State store of the stateful streams, hdfs (in memory) or rocksdb; frozen into a checkpoint at its first run.",
      "hdfs"),
  RETAIN_BATCHES("TIDEMARK_RETAIN_BATCHES", "--retain-batches", "<n>",
      "Micro-batches of checkpoint history (offsets, commits, state versions) kept; a run makes about two.",
      "6"),
  TABLE_RAW_EVENTS("TIDEMARK_TABLE_RAW_EVENTS", "--table-raw-events", "<ns.table>",
      "Raw archive of every parsed event, as it arrived.", "raw.events"),
  TABLE_REJECTED("TIDEMARK_TABLE_REJECTED", "--table-rejected", "<ns.table>",
      "Quarantine of lines that do not parse or miss required fields.", "raw.rejected"),
  TABLE_RAW_COMPANY_CHANGES("TIDEMARK_TABLE_RAW_COMPANY_CHANGES", "--table-raw-company-changes", "<ns.table>",
      "Raw archive of every parsed company change, as it arrived.", "raw.company_changes"),
  TABLE_EVENTS("TIDEMARK_TABLE_EVENTS", "--table-events", "<ns.table>",
      "Deduplicated events.", "facts.events"),
  TABLE_EVENT_COUNTS("TIDEMARK_TABLE_EVENT_COUNTS", "--table-event-counts", "<ns.table>",
      "Event counts per company and event-time window (TIDEMARK_COUNTS_WINDOW).", "facts.event_counts"),
  TABLE_COMPANIES("TIDEMARK_TABLE_COMPANIES", "--table-companies", "<ns.table>",
      "Company dimension, SCD2.", "dims.companies"),
  TABLE_COMPANY_CHANGES("TIDEMARK_TABLE_COMPANY_CHANGES", "--table-company-changes", "<ns.table>",
      "The company changes applied to the dimension, which its history is rebuilt from.",
      "dims.companies_changes"),
  TABLE_RESTATEMENT_LOG("TIDEMARK_TABLE_RESTATEMENT_LOG", "--table-restatement-log", "<ns.table>",
      "One row per correction made by a restatement.", "audit.restatement_log"),
  TABLE_RESTATEMENT_PLAN("TIDEMARK_TABLE_RESTATEMENT_PLAN", "--table-restatement-plan", "<ns.table>",
      "What each restatement planned to correct (written on its branch, read by its write and audit).",
      "audit.restatement_plan"),
  TABLE_AUDIT_CHECKS("TIDEMARK_TABLE_AUDIT_CHECKS", "--table-audit-checks", "<ns.table>",
      "Checks and results of every audit.", "audit.checks"),
  TABLE_STREAM_BATCHES("TIDEMARK_TABLE_STREAM_BATCHES", "--table-stream-batches", "<ns.table>",
      "One row per micro-batch of every stream run (what `tidemark report` and `check` summarize).",
      "audit.stream_batches");

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

  /** The default of a duration setting, for code that runs a stream without a configuration (benchmarks). */
  public Duration defaultDuration() {
    return Durations.parse(defaultValue);
  }

  public boolean isSecret() {
    return this == S3_SECRET_KEY || this == S3_ACCESS_KEY;
  }

  /** How an error names the setting: the variable, and the flag when there is one. */
  public String display() {
    return flag == null ? env : env + " (" + flag + ")";
  }

  /**
   * The defaults of the streams' delays and window, as constants: help texts quote them, and an annotation takes
   * only a constant.
   */
  public static final class Defaults {
    public static final String COUNTS_WATERMARK = "10 minutes";
    public static final String COUNTS_WINDOW = "5 minutes";
    public static final String DEDUP_WATERMARK = "30 minutes";
    public static final String SCD2_WATERMARK = "1 day";

    private Defaults() {}
  }
}
