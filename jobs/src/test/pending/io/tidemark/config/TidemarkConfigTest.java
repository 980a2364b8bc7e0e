package io.tidemark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TidemarkConfigTest {

  @Test
  void defaultsUseEmbeddedServicesUnderTheHome() {
    TidemarkConfig c = TidemarkConfig.of(Map.of(), Map.of());
    assertThat(c.nessieUri()).as("no external Nessie by default").isEmpty();
    assertThat(c.s3Endpoint()).as("no external S3 by default").isEmpty();
    assertThat(c.home()).isEqualTo(Path.of(".tidemark").toAbsolutePath().normalize());
    assertThat(c.nessieRef()).isEqualTo("main");
    assertThat(c.nessiePort()).isEqualTo(19120);
    assertThat(c.icebergRestUri()).isEqualTo(URI.create("http://127.0.0.1:19120/iceberg/"));
    assertThat(c.nessieManagementPort()).as("moved off 9000, where MinIO lives").isEqualTo(19121);
    assertThat(c.warehouse()).isEqualTo("s3://tidemark-warehouse/warehouse");
    assertThat(c.checkpointRoot()).isEqualTo(c.home().resolve("checkpoints").toString());
    assertThat(c.sparkMaster()).isEqualTo("local[2]");
    assertThat(c.s3PathStyle()).isTrue();
    assertThat(c.tables().eventCounts()).isEqualTo(new TableName("facts", "event_counts"));
  }

  @Test
  void flagsOverrideEnvironment() {
    Map<String, String> env = Map.of("TIDEMARK_NESSIE_REF", "dev", "TIDEMARK_SPARK_MASTER", "local[4]",
        "TIDEMARK_HOME", "/srv/tm");
    TidemarkConfig c = TidemarkConfig.of(env, Map.of(Setting.NESSIE_REF, "feature/x"));
    assertThat(c.nessieRef()).as("the flag wins").isEqualTo("feature/x");
    assertThat(c.sparkMaster()).as("the environment is kept where no flag is given").isEqualTo("local[4]");
    assertThat(c.home()).isEqualTo(Path.of("/srv/tm"));
    assertThat(c.checkpointRoot()).isEqualTo("/srv/tm/checkpoints");
  }

  @Test
  void externalEndpointsNeedCredentials() {
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of("TIDEMARK_S3_ENDPOINT", "http://minio:9000"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("TIDEMARK_S3_ACCESS_KEY: required when TIDEMARK_S3_ENDPOINT is set");
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_S3_ENDPOINT", "http://minio:9000",
        "TIDEMARK_S3_ACCESS_KEY", "AK", "TIDEMARK_S3_SECRET_KEY", "SK-very-secret",
        "TIDEMARK_NESSIE_URI", "http://nessie:19120/api/v2"), Map.of());
    assertThat(c.s3Endpoint()).contains(URI.create("http://minio:9000"));
    assertThat(c.nessieUri()).contains(URI.create("http://nessie:19120/api/v2"));
    assertThat(c.s3SecretKey().orElseThrow().reveal()).isEqualTo("SK-very-secret");
    assertThat(c.icebergRestUri()).as("derived from the Nessie API").isEqualTo(URI.create("http://nessie:19120/iceberg/"));
  }

  @Test
  void icebergRestUriFollowsTheNessieServerUnlessSet() {
    assertThat(TidemarkConfig.of(Map.of("TIDEMARK_NESSIE_PORT", "29120"), Map.of()).icebergRestUri())
        .isEqualTo(URI.create("http://127.0.0.1:29120/iceberg/"));
    TidemarkConfig proxied = TidemarkConfig.of(Map.of("TIDEMARK_NESSIE_URI", "https://lake.example/nessie/api/v2",
        "TIDEMARK_ICEBERG_REST_URI", "https://lake.example/iceberg/"), Map.of());
    assertThat(proxied.icebergRestUri()).isEqualTo(URI.create("https://lake.example/iceberg/"));
    assertThat(proxied.describe()).containsEntry(Setting.ICEBERG_REST_URI, "https://lake.example/iceberg/");
    assertThat(TidemarkConfig.of(Map.of(), Map.of()).describe())
        .as("tidemark config shows the derived value").containsEntry(Setting.ICEBERG_REST_URI, "http://127.0.0.1:19120/iceberg/");
  }

  @Test
  void secretsAreNeverShown() {
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_S3_ENDPOINT", "http://minio:9000",
        "TIDEMARK_S3_ACCESS_KEY", "AKIDENTITY", "TIDEMARK_S3_SECRET_KEY", "SK-very-secret"), Map.of());
    assertThat(c.toString()).doesNotContain("SK-very-secret").doesNotContain("AKIDENTITY").contains("****");
    assertThat(c.describe().values()).doesNotContain("SK-very-secret", "AKIDENTITY");
    assertThat(c.s3SecretKey().orElseThrow().toString()).isEqualTo("****");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "TIDEMARK_NESSIE_PORT|abc|TIDEMARK_NESSIE_PORT (--nessie-port): expected a whole number from 1 to 65535, got 'abc'",
      "TIDEMARK_S3_PORT|70000|TIDEMARK_S3_PORT (--s3-port): expected a whole number from 1 to 65535, got '70000'",
      "TIDEMARK_S3_PATH_STYLE|maybe|TIDEMARK_S3_PATH_STYLE (--s3-path-style): expected true or false, got 'maybe'",
      "TIDEMARK_NESSIE_URI|nessie:19120|TIDEMARK_NESSIE_URI (--nessie-uri): expected an http:// or https:// URL with a host, got 'nessie:19120'",
      "TIDEMARK_LANDING_BUCKET|My_Bucket|TIDEMARK_LANDING_BUCKET (--landing-bucket): expected an S3 bucket name (3-63 of a-z 0-9 . -), got 'My_Bucket'",
      "TIDEMARK_SPARK_MASTER|lokal|TIDEMARK_SPARK_MASTER (--spark-master): expected local[N], local[*], spark://host:port, k8s://... or yarn, got 'lokal'",
      "TIDEMARK_NESSIE_REF|-bad|TIDEMARK_NESSIE_REF (--nessie-ref): expected a Nessie branch or tag name, got '-bad'",
      "TIDEMARK_TABLE_EVENTS|facts.events; DROP TABLE x|TIDEMARK_TABLE_EVENTS (--table-events): table 'events; DROP TABLE x' is not a plain SQL identifier (letters, digits, _; not starting with a digit)",
      "TIDEMARK_TABLE_EVENTS|events|TIDEMARK_TABLE_EVENTS (--table-events): expected namespace.table, got 'events'",
      "TIDEMARK_TABLE_EVENTS|facts.ev-ents|TIDEMARK_TABLE_EVENTS (--table-events): table 'ev-ents' is not a plain SQL identifier (letters, digits, _; not starting with a digit)",
      "TIDEMARK_SHUFFLE_PARTITIONS|0|TIDEMARK_SHUFFLE_PARTITIONS (--shuffle-partitions): expected a whole number from 1 to 10000, got '0'",
      "TIDEMARK_CHECKPOINT_ROOT|s3a://|TIDEMARK_CHECKPOINT_ROOT (--checkpoint-root): expected a local path or a URI such as s3a://bucket/path, got 's3a://'",
  })
  void malformedValuesNameTheVariable(String variable, String value, String message) {
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of(variable, value), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(message)
        .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
  }

  @Test
  void portsMustNotCollide() {
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of("TIDEMARK_S3_PORT", "19120"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("TIDEMARK_S3_PORT");
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of("TIDEMARK_NESSIE_MANAGEMENT_PORT", "19120"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("TIDEMARK_NESSIE_MANAGEMENT_PORT");
  }

  @Test
  void blankCountsAsUnset() {
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_NESSIE_URI", "  ", "TIDEMARK_NESSIE_REF", ""), Map.of());
    assertThat(c.nessieUri()).isEmpty();
    assertThat(c.nessieRef()).isEqualTo("main");
  }

  @Test
  void withReplacesAndValidatesAgain() {
    TidemarkConfig c = TidemarkConfig.of(Map.of(), Map.of());
    assertThat(c.with(Map.of(Setting.NESSIE_REF, "dev")).nessieRef()).isEqualTo("dev");
    assertThatThrownBy(() -> c.with(Map.of(Setting.NESSIE_PORT, "x"))).isInstanceOf(ConfigException.class);
  }
}
