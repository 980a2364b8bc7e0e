package io.tidemark.services;

import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real Nessie server (the Quarkus runner jar), on 127.0.0.1 with a persistent RocksDB version store, so
 * that branches and tables survive a restart. It needs Java 21+, which is searched for.
 */
final class NessieServer extends EmbeddedServer {
  static final String JAR = "nessie-server.jar";
  private static final int MIN_JAVA = 21;

  private final TidemarkConfig config;
  private final Path dataDir;

  NessieServer(TidemarkConfig config) {
    super("nessie", config.home().resolve("run"));
    this.config = config;
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
    return List.of(java.toString(),
        "-Xms64m", "-Xmx512m",
        "-Dquarkus.http.host=127.0.0.1",
        "-Dquarkus.http.port=" + config.nessiePort(),
        // the management port defaults to 9000, where MinIO lives in the compose stack
        "-Dquarkus.management.host=127.0.0.1",
        "-Dquarkus.management.port=" + config.nessieManagementPort(),
        "-Dnessie.version.store.type=ROCKSDB",
        "-Dnessie.version.store.persist.rocks.database-path=" + dataDir.resolve("rocksdb"),
        "-Dquarkus.otel.sdk.disabled=true",
        "-Dquarkus.banner.enabled=false",
        "-jar", jar.toString());
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
    return uri("http://127.0.0.1:" + config.nessiePort() + "/api/v2");
  }
}
