package io.tidemark.services;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The real Nessie server (the Quarkus runner jar), on 127.0.0.1 with a persistent RocksDB version store, so
 * that branches and tables survive a restart. It needs Java 21+, which is searched for.
 *
 * <p>It also serves the Iceberg REST catalog ({@code /iceberg/}) for the warehouse the jobs write, so that other
 * engines read the tables: Nessie reads table metadata from S3 itself, so it gets the S3 endpoint and, through
 * its environment, the S3 credentials.
 */
final class NessieServer extends EmbeddedServer {
  static final String JAR = "nessie-server.jar";
  /** The name REST clients may add to a ref ({@code main|tidemark}); the default, so none need to. */
  static final String WAREHOUSE_NAME = "tidemark";
  /** Nessie resolves {@code urn:nessie-secret:quarkus:<name>} from its configuration: the environment here. */
  static final String S3_SECRET_NAME = "tidemark-s3";
  private static final int MIN_JAVA = 21;

  private final TidemarkConfig config;
  private final Supplier<Endpoints> storage;
  private final Path dataDir;

  /** {@code storage}: where the S3 server is and its credentials, asked for when the server starts. */
  NessieServer(TidemarkConfig config, Supplier<Endpoints> storage) {
    super("nessie", config.home().resolve("run"));
    this.config = config;
    this.storage = storage;
    this.dataDir = config.home().resolve("nessie");
  }

  @Override
  Map<Integer, String> ports() {
    Map<Integer, String> ports = new LinkedHashMap<>();
    ports.put(config.nessiePort(), Setting.NESSIE_PORT.env());
    ports.put(config.nessieManagementPort(), Setting.NESSIE_MANAGEMENT_PORT.env());
    return ports;
  }

  @Override
  List<String> command() throws IOException {
    Path jar = serverJar(JAR);
    Path java = JavaRuntimes.find(MIN_JAVA, config.nessieJava(), Setting.NESSIE_JAVA.display());
    Files.createDirectories(dataDir.resolve("rocksdb"));
    List<String> command = new ArrayList<>(List.of(java.toString(),
        "-Xms64m", "-Xmx512m",
        // a single user's server on a laptop: the JIT's first tier and the serial collector take about half the CPU
        // of the defaults, both to start and to serve a pipeline's calls (C2 costs more to compile than it saves)
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Dquarkus.http.host=127.0.0.1",
        "-Dquarkus.http.port=" + config.nessiePort(),
        // the management port defaults to 9000, where MinIO lives in the compose stack
        "-Dquarkus.management.host=127.0.0.1",
        "-Dquarkus.management.port=" + config.nessieManagementPort(),
        "-Dnessie.version.store.type=ROCKSDB",
        "-Dnessie.version.store.persist.rocks.database-path=" + dataDir.resolve("rocksdb"),
        "-Dquarkus.otel.sdk.disabled=true",
        "-Dquarkus.banner.enabled=false"));
    command.addAll(icebergRestCatalog(storage.get()));
    command.addAll(List.of("-jar", jar.toString()));
    return command;
  }

  /**
   * The Iceberg REST catalog: the default warehouse at the jobs' warehouse location, and S3 as the jobs see it.
   * Request signing is off (clients bring their own S3 credentials); the access key is only a reference to the
   * secret in {@link #environment()}, which Nessie checks at start-up.
   */
  private List<String> icebergRestCatalog(Endpoints endpoints) {
    String s3 = "-Dnessie.catalog.service.s3.default-options.";
    return List.of(
        "-Dnessie.catalog.default-warehouse=" + WAREHOUSE_NAME,
        "-Dnessie.catalog.warehouses." + WAREHOUSE_NAME + ".location=" + config.warehouse(),
        s3 + "endpoint=" + endpoints.s3Endpoint(),
        s3 + "path-style-access=" + config.s3PathStyle(),
        s3 + "region=" + config.s3Region(),
        s3 + "auth-type=STATIC",
        s3 + "access-key=urn:nessie-secret:quarkus:" + S3_SECRET_NAME,
        s3 + "request-signing-enabled=false",
        "-Dnessie.catalog.validate-secrets=true");
  }

  @Override
  Map<String, String> environment() {
    Endpoints endpoints = storage.get();
    return Map.of(
        S3_SECRET_NAME + ".name", endpoints.s3AccessKey().reveal(),
        S3_SECRET_NAME + ".secret", endpoints.s3SecretKey().reveal());
  }

  @Override
  Path workDir() {
    return dataDir;
  }

  @Override
  URI healthUri() {
    return uri("http://127.0.0.1:" + config.nessiePort() + "/api/v2/config");
  }

  @Override
  String address() {
    return "http://127.0.0.1:" + config.nessiePort() + "/api/v2 (UI http://127.0.0.1:" + config.nessiePort() + "/)";
  }

  URI apiUri() {
    return apiUri(config);
  }

  /** Where the embedded server answers, whether it runs or not. */
  static URI apiUri(TidemarkConfig config) {
    return uri("http://127.0.0.1:" + config.nessiePort() + "/api/v2");
  }
}
