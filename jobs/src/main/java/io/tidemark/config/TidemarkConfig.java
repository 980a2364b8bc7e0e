package io.tidemark.config;

import io.tidemark.pipeline.Pipeline;
import io.tidemark.pipeline.PipelineFile;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The whole configuration of tidemark, typed and validated, built from environment variables and overridden
 * by flags. Construction fails fast with a one-line {@link ConfigException} naming the variable to fix.
 */
public final class TidemarkConfig {
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern REF = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]*");
  private static final Pattern MASTER = Pattern.compile("local(\\[(\\*|\\d+)(,\\s*\\d+)?])?|(spark|k8s|yarn)(://.*)?");

  private final Map<Setting, String> raw;

  private final Path home;
  private final Optional<URI> nessieUri;
  private final URI icebergRestUri;
  private final String nessieRef;
  private final String publishedRef;
  private final String stagingBranch;
  private final boolean writer;
  private final int nessiePort;
  private final int nessieManagementPort;
  private final Optional<Path> nessieJava;
  private final Optional<URI> s3Endpoint;
  private final int s3Port;
  private final String s3Region;
  private final Optional<Secret> s3AccessKey;
  private final Optional<Secret> s3SecretKey;
  private final boolean s3PathStyle;
  private final String landingBucket;
  private final String warehouseBucket;
  private final String warehouse;
  private final String checkpointRoot;
  private final String sparkMaster;
  private final int shufflePartitions;
  private final String stateStore;
  private final int retainBatches;
  /** The pipeline the file declares, in its scope; read again only when a setting it depends on changes. */
  private final Pipeline pipeline;

  private TidemarkConfig(Map<Setting, String> raw) {
    this(raw, false, null);
  }

  private TidemarkConfig(Map<Setting, String> raw, boolean writer, Pipeline pipeline) {
    this.raw = raw;
    this.writer = writer;
    home = path(Setting.HOME).toAbsolutePath().normalize();
    nessieUri = optional(Setting.NESSIE_URI).map(v -> httpUrl(Setting.NESSIE_URI, v));
    publishedRef = matching(Setting.NESSIE_REF, REF, "a Nessie branch or tag name");
    stagingBranch = matching(Setting.STAGING_BRANCH, REF, "a Nessie branch name");
    nessieRef = writer ? stagingBranch : publishedRef;
    nessiePort = port(Setting.NESSIE_PORT);
    nessieManagementPort = port(Setting.NESSIE_MANAGEMENT_PORT);
    if (nessiePort == nessieManagementPort) {
      throw new ConfigException(Setting.NESSIE_MANAGEMENT_PORT.display() + ": must differ from "
          + Setting.NESSIE_PORT.env() + " (both are " + nessiePort + ")");
    }
    icebergRestUri = optional(Setting.ICEBERG_REST_URI).map(v -> httpUrl(Setting.ICEBERG_REST_URI, v))
        .orElseGet(() -> icebergRestOf(nessieUri.map(URI::toString).orElse("http://127.0.0.1:" + nessiePort)));
    nessieJava = optional(Setting.NESSIE_JAVA).map(v -> pathOf(Setting.NESSIE_JAVA, v));
    s3Endpoint = optional(Setting.S3_ENDPOINT).map(v -> httpUrl(Setting.S3_ENDPOINT, v));
    s3Port = port(Setting.S3_PORT);
    if (s3Port == nessiePort || s3Port == nessieManagementPort) {
      throw new ConfigException(Setting.S3_PORT.display() + ": port " + s3Port + " is already taken by Nessie");
    }
    s3Region = matching(Setting.S3_REGION, Pattern.compile("[a-z0-9-]+"), "an S3 region such as us-east-1");
    s3AccessKey = optional(Setting.S3_ACCESS_KEY).map(Secret::new);
    s3SecretKey = optional(Setting.S3_SECRET_KEY).map(Secret::new);
    if (s3Endpoint.isPresent()) {
      for (Setting s : new Setting[] {Setting.S3_ACCESS_KEY, Setting.S3_SECRET_KEY}) {
        if (optional(s).isEmpty()) {
          throw new ConfigException(s.env() + ": required when " + Setting.S3_ENDPOINT.env() + " is set");
        }
      }
    }
    s3PathStyle = bool(Setting.S3_PATH_STYLE);
    landingBucket = matching(Setting.LANDING_BUCKET, BUCKET, "an S3 bucket name (3-63 of a-z 0-9 . -)");
    warehouseBucket = matching(Setting.WAREHOUSE_BUCKET, BUCKET, "an S3 bucket name (3-63 of a-z 0-9 . -)");
    warehouse = optional(Setting.WAREHOUSE).map(v -> location(Setting.WAREHOUSE, v))
        .orElse("s3://" + warehouseBucket + "/warehouse");
    checkpointRoot = optional(Setting.CHECKPOINT_ROOT).map(v -> location(Setting.CHECKPOINT_ROOT, v))
        .orElse(home.resolve("checkpoints").toString());
    sparkMaster = matching(Setting.SPARK_MASTER, MASTER, "local[N], local[*], spark://host:port, k8s://... or yarn");
    shufflePartitions = intIn(Setting.SHUFFLE_PARTITIONS, 1, 10_000);
    stateStore = matching(Setting.STATE_STORE, Pattern.compile("hdfs|rocksdb"), "hdfs or rocksdb");
    retainBatches = intIn(Setting.RETAIN_BATCHES, 2, 100_000);
    this.pipeline = pipeline != null ? pipeline : readPipeline();
  }

  /** The pipeline file's pipeline (the seed's when none is set), in the scope when one is set. */
  private Pipeline readPipeline() {
    Pipeline p = optional(Setting.PIPELINE).map(v -> PipelineFile.read(pathOf(Setting.PIPELINE, v)))
        .orElseGet(PipelineFile::seed);
    Optional<String> scope = optional(Setting.SCOPE);
    if (scope.isPresent() && !TableName.isIdentifier(scope.get())) {
      throw bad(Setting.SCOPE, scope.get(), "a namespace: a plain SQL identifier (letters, digits, _)");
    }
    return scope.map(p::scoped).orElse(p);
  }

  /**
   * Builds the configuration from an environment (variable name to value) and flag overrides; blank values
   * count as unset.
   */
  public static TidemarkConfig of(Map<String, String> env, Map<Setting, String> overrides) {
    Map<Setting, String> raw = new EnumMap<>(Setting.class);
    for (Setting s : Setting.values()) {
      String value = overrides.containsKey(s) ? overrides.get(s) : env.get(s.env());
      if (value != null && !value.isBlank()) {
        raw.put(s, value.trim());
      }
    }
    return new TidemarkConfig(raw);
  }

  /**
   * The home of the configuration {@link #of} would build, from the same settings, reading nothing else: what a
   * command needs before it reads the pipeline file, whose conditions Spark's parser checks, which starts the
   * libraries' logging (it must know its file by then).
   */
  public static Path homeOf(Map<String, String> env, Map<Setting, String> overrides) {
    String v = overrides.containsKey(Setting.HOME) ? overrides.get(Setting.HOME) : env.get(Setting.HOME.env());
    if (v == null || v.isBlank()) {
      v = Setting.HOME.defaultValue();
    }
    return pathOf(Setting.HOME, v.trim()).toAbsolutePath().normalize();
  }

  /**
   * The configuration of a job that writes tables (the streams, the restatement, compaction, benchmarks): its
   * catalog works on the staging branch, which {@code tidemark publish} checks and publishes. Readers keep this
   * configuration, on the published branch.
   */
  public TidemarkConfig writing() {
    return new TidemarkConfig(raw, true, pipeline);
  }

  /** A copy with some settings replaced, validated again. */
  public TidemarkConfig with(Map<Setting, String> changes) {
    Map<Setting, String> copy = new EnumMap<>(Setting.class);
    copy.putAll(raw);
    changes.forEach((k, v) -> {
      if (v == null || v.isBlank()) {
        copy.remove(k);
      } else {
        copy.put(k, v);
      }
    });
    boolean samePipeline = java.util.Objects.equals(copy.get(Setting.PIPELINE), raw.get(Setting.PIPELINE))
        && java.util.Objects.equals(copy.get(Setting.SCOPE), raw.get(Setting.SCOPE));
    return new TidemarkConfig(copy, writer, samePipeline ? pipeline : null);
  }

  /**
   * A copy for a pipeline of its own next to the configured one: every table in namespace {@code name}
   * ({@link Setting#SCOPE}), its own landing bucket ({@code name} with dashes) and checkpoints. For tests and
   * benchmarks on one stack.
   */
  public TidemarkConfig scoped(String name, Path checkpointRoot) {
    Map<Setting, String> s = new EnumMap<>(Setting.class);
    s.put(Setting.LANDING_BUCKET, name.replace('_', '-'));
    s.put(Setting.CHECKPOINT_ROOT, checkpointRoot.toString());
    s.put(Setting.SCOPE, name);
    return with(s);
  }

  /**
   * Every setting with the value it was given or derived from others (secrets masked), null where its default
   * applies: the environment that makes this configuration again, and what logs show. {@code tidemark config} adds
   * the defaults ({@link #isSet}).
   */
  public Map<Setting, String> describe() {
    Map<Setting, String> out = new LinkedHashMap<>();
    for (Setting s : Setting.values()) {
      String v = raw.get(s);
      out.put(s, v == null ? null : s.isSecret() ? "****" : v);
    }
    out.put(Setting.HOME, home.toString());
    out.put(Setting.ICEBERG_REST_URI, icebergRestUri.toString());
    out.put(Setting.WAREHOUSE, warehouse);
    out.put(Setting.CHECKPOINT_ROOT, checkpointRoot);
    return out;
  }

  /** Whether the environment or a flag gave {@code s} a value (else its default applies, or it is derived). */
  public boolean isSet(Setting s) {
    return raw.containsKey(s);
  }

  public Path home() {
    return home;
  }

  /** The external Nessie API, or empty when the embedded server is used. */
  public Optional<URI> nessieUri() {
    return nessieUri;
  }

  /**
   * Where other engines find the tables: Nessie's Iceberg REST catalog. A client reads another branch or tag by
   * appending its name: {@code <uri>dev}.
   */
  public URI icebergRestUri() {
    return icebergRestUri;
  }

  /** Nessie serves Iceberg REST at /iceberg/ next to its own API at /api/v2. */
  private static URI icebergRestOf(String nessie) {
    int api = nessie.indexOf("/api/");
    String root = api < 0 ? nessie : nessie.substring(0, api);
    return URI.create((root.endsWith("/") ? root : root + "/") + "iceberg/");
  }

  /** The branch (or tag) this process's catalog reads and writes: the published one, or staging for a writer. */
  public String nessieRef() {
    return nessieRef;
  }

  /** The branch readers see (TIDEMARK_NESSIE_REF), which only {@code tidemark publish} writes. */
  public String publishedRef() {
    return publishedRef;
  }

  /** The branch the writers commit to (TIDEMARK_STAGING_BRANCH). */
  public String stagingBranch() {
    return stagingBranch;
  }

  /** Whether this is a writer's configuration ({@link #writing}). */
  public boolean isWriting() {
    return writer;
  }

  public int nessiePort() {
    return nessiePort;
  }

  public int nessieManagementPort() {
    return nessieManagementPort;
  }

  public Optional<Path> nessieJava() {
    return nessieJava;
  }

  /** The external S3 endpoint, or empty when the embedded server is used. */
  public Optional<URI> s3Endpoint() {
    return s3Endpoint;
  }

  public int s3Port() {
    return s3Port;
  }

  public String s3Region() {
    return s3Region;
  }

  public Optional<Secret> s3AccessKey() {
    return s3AccessKey;
  }

  public Optional<Secret> s3SecretKey() {
    return s3SecretKey;
  }

  public boolean s3PathStyle() {
    return s3PathStyle;
  }

  public String landingBucket() {
    return landingBucket;
  }

  public String warehouseBucket() {
    return warehouseBucket;
  }

  public String warehouse() {
    return warehouse;
  }

  public String checkpointRoot() {
    return checkpointRoot;
  }

  public String sparkMaster() {
    return sparkMaster;
  }

  public int shufflePartitions() {
    return shufflePartitions;
  }

  /** "hdfs" (Spark's default, state in memory with files in the checkpoint) or "rocksdb". */
  public String stateStore() {
    return stateStore;
  }

  public int retainBatches() {
    return retainBatches;
  }

  /** The pipeline: its feeds, their tables and streams, and the tables they share. */
  public Pipeline pipeline() {
    return pipeline;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("TidemarkConfig{");
    describe().forEach((k, v) -> {
      if (v != null) {
        sb.append(k.env()).append('=').append(v).append(", ");
      }
    });
    sb.setLength(sb.length() - 2);
    return sb.append('}').toString();
  }

  private Optional<String> optional(Setting s) {
    return Optional.ofNullable(raw.getOrDefault(s, s.defaultValue()));
  }

  private String required(Setting s) {
    return optional(s).orElseThrow(() -> new ConfigException(s.display() + ": required but not set"));
  }

  private String matching(Setting s, Pattern pattern, String expected) {
    String v = required(s);
    if (!pattern.matcher(v).matches()) {
      throw bad(s, v, expected);
    }
    return v;
  }

  private int intIn(Setting s, int min, int max) {
    String v = required(s);
    try {
      int n = Integer.parseInt(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw bad(s, v, "a whole number from " + min + " to " + max);
  }

  private int port(Setting s) {
    return intIn(s, 1, 65535);
  }

  private boolean bool(Setting s) {
    String v = required(s);
    return switch (v.toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw bad(s, v, "true or false");
    };
  }

  private Path path(Setting s) {
    return pathOf(s, required(s));
  }

  private static Path pathOf(Setting s, String v) {
    try {
      return Path.of(v);
    } catch (InvalidPathException e) {
      throw bad(s, v, "a file system path");
    }
  }

  private static URI httpUrl(Setting s, String v) {
    try {
      URI uri = new URI(v);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return uri;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw bad(s, v, "an http:// or https:// URL with a host");
  }

  /** A local path, or a URI with a scheme such as s3:// or s3a://. */
  private static String location(Setting s, String v) {
    if (v.contains("://")) {
      try {
        URI uri = new URI(v);
        if (uri.getScheme() != null && uri.getAuthority() != null) {
          return v;
        }
      } catch (URISyntaxException e) {
        // reported below
      }
      throw bad(s, v, "a local path or a URI such as s3a://bucket/path");
    }
    return pathOf(s, v).toAbsolutePath().normalize().toString();
  }

  private static ConfigException bad(Setting s, String value, String expected) {
    String shown = s.isSecret() ? "****" : value;
    return new ConfigException(s.display() + ": expected " + expected + ", got '" + shown + "'");
  }
}
