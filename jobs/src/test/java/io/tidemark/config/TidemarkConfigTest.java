package io.tidemark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tidemark.pipeline.PipelineException;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.testing.SeedTables;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

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
    assertThat(c.pipeline().name()).as("the seed's file by default").isEqualTo("seed");
    assertThat(SeedTables.of(c).eventCounts()).isEqualTo(new TableName("facts", "event_counts"));
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
      "TIDEMARK_SCOPE|it; DROP TABLE x|TIDEMARK_SCOPE (--scope): expected a namespace: a plain SQL identifier (letters, digits, _), got 'it; DROP TABLE x'",
      "TIDEMARK_SCOPE|it.x|TIDEMARK_SCOPE (--scope): expected a namespace: a plain SQL identifier (letters, digits, _), got 'it.x'",
      "TIDEMARK_SCOPE|it-x|TIDEMARK_SCOPE (--scope): expected a namespace: a plain SQL identifier (letters, digits, _), got 'it-x'",
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

  /** A table the pipeline file names that is not a plain namespace.table: one line naming the file, line and field. */
  @ParameterizedTest
  @ValueSource(strings = {"facts.events; DROP TABLE x", "events", "facts.ev-ents"})
  void aBadTableNameInThePipelineFileNamesWhereItIs(String table, @TempDir Path dir) throws IOException {
    String seed = seedText();
    String dedup = "table: facts.events,";
    assertThat(seed).contains(dedup);
    Path file = dir.resolve("bad.yml");
    Files.writeString(file, seed.replace(dedup, "table: \"" + table + "\","));
    int line = seed.substring(0, seed.indexOf(dedup)).split("\n", -1).length;
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of("TIDEMARK_PIPELINE", file.toString()), Map.of()))
        .isInstanceOf(PipelineException.class)
        .hasMessageStartingWith(file + ":" + line + ": facts[events].dedup.table: ")
        .hasMessageEndingWith(table.equals("events") ? "expected namespace.table, got 'events'"
            : "is not a plain SQL identifier (letters, digits, _; not starting with a digit)")
        .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
  }

  @Test
  void thePipelineSettingNamesTheFileAndTheScopePutsEveryTableInOneNamespace(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("mine.yml");
    Files.writeString(file, seedText().replace("pipeline: seed", "pipeline: mine")
        .replace("table: facts.event_counts", "table: facts.counts_per_company"));
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_PIPELINE", file.toString()), Map.of());
    assertThat(c.pipeline().name()).isEqualTo("mine");
    assertThat(SeedTables.of(c).eventCounts()).isEqualTo(TableName.parse("facts.counts_per_company"));
    TidemarkConfig scoped = c.with(Map.of(Setting.SCOPE, "it_x"));
    assertThat(scoped.pipeline().tables()).as("every table, the shared ones too").allMatch(t -> t.namespace()
        .equals("it_x")).contains(TableName.parse("it_x.facts_counts_per_company"), TableName.parse("it_x.raw_rejected"));
    assertThat(scoped.with(Map.of(Setting.SCOPE, "")).pipeline()).as("unset again").isEqualTo(c.pipeline());
    assertThatThrownBy(() -> TidemarkConfig.of(Map.of("TIDEMARK_PIPELINE", dir.resolve("none.yml").toString()),
        Map.of())).isInstanceOf(PipelineException.class).hasMessage(dir.resolve("none.yml") + ": no such file");
  }

  private static String seedText() throws IOException {
    try (InputStream in = PipelineFile.class.getResourceAsStream(PipelineFile.SEED_RESOURCE)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
