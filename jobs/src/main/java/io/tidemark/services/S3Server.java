package io.tidemark.services;

import io.tidemark.config.Secret;
import io.tidemark.config.Setting;
import io.tidemark.config.TidemarkConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * An S3-compatible server (s3proxy with its filesystem backend, path-style) under the data directory. Its
 * credentials are generated on first start and kept, readable by the owner only, in its properties file.
 */
final class S3Server extends EmbeddedServer {
  static final String JAR = "s3proxy.jar";

  private final TidemarkConfig config;
  private final Path dir;

  S3Server(TidemarkConfig config) {
    super("s3", config.home().resolve("run"));
    this.config = config;
    this.dir = config.home().resolve("s3");
  }

  /** The file holding the generated access key and secret (and the rest of s3proxy's settings). */
  Path credentialsFile() {
    return dir.resolve("s3proxy.properties");
  }

  @Override
  Map<Integer, String> ports() {
    return Map.of(config.s3Port(), Setting.S3_PORT.env());
  }

  @Override
  List<String> command() throws IOException {
    Path jar = serverJar(JAR);
    writeProperties();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return List.of(java, "-Xms32m", "-Xmx256m", "-jar", jar.toString(),
        "--properties", credentialsFile().toString());
  }

  @Override
  Path workDir() {
    return dir;
  }

  @Override
  URI healthUri() {
    return uri("http://127.0.0.1:" + config.s3Port() + "/");
  }

  /** Any HTTP answer means it serves: s3proxy answers an anonymous request with 403. */
  @Override
  boolean healthy() {
    int status = Probe.get(healthUri(), new String[1]);
    return status > 0 && status < 500;
  }

  @Override
  String address() {
    return endpoint().toString();
  }

  URI endpoint() {
    return uri("http://127.0.0.1:" + config.s3Port());
  }

  /** The generated credentials; they exist once the server was started here. */
  Secret[] credentials() {
    Properties p = load();
    String id = p.getProperty("s3proxy.identity");
    String secret = p.getProperty("s3proxy.credential");
    if (id == null || secret == null) {
      throw new ServiceException("no credentials in " + credentialsFile() + "; run: tidemark services up");
    }
    return new Secret[] {new Secret(id), new Secret(secret)};
  }

  private Properties load() {
    Properties p = new Properties();
    if (Files.isRegularFile(credentialsFile())) {
      try (Reader r = Files.newBufferedReader(credentialsFile(), StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (IOException e) {
        throw new ServiceException("cannot read " + credentialsFile() + ": " + e.getMessage(), e);
      }
    }
    return p;
  }

  /** Writes s3proxy's settings, keeping credentials generated earlier so that stored data stays readable. */
  private void writeProperties() throws IOException {
    Files.createDirectories(dir.resolve("data"));
    Properties p = load();
    SecureRandom random = new SecureRandom();
    if (p.getProperty("s3proxy.identity") == null || p.getProperty("s3proxy.credential") == null) {
      p.setProperty("s3proxy.identity", "tm" + HexFormat.of().formatHex(randomBytes(random, 9)));
      p.setProperty("s3proxy.credential", HexFormat.of().formatHex(randomBytes(random, 24)));
    }
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + config.s3Port());
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("jclouds.provider", "filesystem");
    p.setProperty("jclouds.filesystem.basedir", dir.resolve("data").toString());
    Path file = credentialsFile();
    if (!Files.exists(file)) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(w, "tidemark embedded S3 server (s3proxy); generated credentials, keep private");
    }
  }

  private static byte[] randomBytes(SecureRandom random, int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }
}
