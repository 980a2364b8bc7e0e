package io.tidemark.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.pipeline.PipelineFile;
import io.tidemark.pipeline.StreamDef;
import io.tidemark.testing.Seed;
import io.tidemark.testing.SeedTables;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamSpecTest {
  private static TidemarkConfig config;

  /** The seed's file with a window of 15 minutes: what the streams run comes from the file and the settings. */
  @BeforeAll
  static void pipelineFile(@TempDir Path dir) throws IOException {
    String seed;
    try (InputStream in = PipelineFile.class.getResourceAsStream(PipelineFile.SEED_RESOURCE)) {
      seed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(seed).contains("window: 5 minutes");
    Path file = dir.resolve("pipeline.yml");
    Files.writeString(file, seed.replace("window: 5 minutes", "window: 15 minutes"));
    config = TidemarkConfig.of(Map.of("TIDEMARK_HOME", "/srv/tm", "TIDEMARK_LANDING_BUCKET", "land",
        "TIDEMARK_PIPELINE", file.toString()), Map.of());
  }

  @Test
  void sourcesCheckpointsTablesAndDelaysComeFromTheConfiguration() {
    StreamSpec counts = StreamSpec.of(Seed.WINDOWED_COUNTS, config);
    assertThat(counts.kind()).isEqualTo(StreamDef.Kind.AGGREGATE);
    assertThat(counts.source()).isEqualTo("s3a://land/events/");
    assertThat(counts.checkpoint()).isEqualTo("/srv/tm/checkpoints/windowed-counts");
    assertThat(counts.table()).isEqualTo(SeedTables.of(config).eventCounts());
    assertThat(counts.watermark()).isEqualTo(Duration.ofMinutes(10));
    assertThat(counts.def().aggregate().rule().windows().size()).isEqualTo(Duration.ofMinutes(15));
    assertThat(counts.sideTable()).isNull();
    assertThat(counts.batches()).isEqualTo(SeedTables.of(config).streamBatches());

    StreamSpec scd2 = StreamSpec.of(Seed.SCD2, config);
    assertThat(scd2.source()).isEqualTo("s3a://land/companies/");
    assertThat(scd2.checkpoint()).isEqualTo("/srv/tm/checkpoints/scd2");
    assertThat(scd2.table()).isEqualTo(SeedTables.of(config).companies());
    assertThat(scd2.sideTable()).as("the change log").isEqualTo(SeedTables.of(config).companyChanges());
    assertThat(scd2.watermark()).isEqualTo(Duration.ofDays(1));
    assertThat(scd2.archive()).as("the feed's raw archive declares it").isEqualTo(SeedTables.of(config)
        .rawCompanyChanges());

    StreamSpec rawCompanies = StreamSpec.of(Seed.RAW_COMPANIES, config);
    assertThat(rawCompanies.checkpoint()).isEqualTo("/srv/tm/checkpoints/raw-companies");
    assertThat(rawCompanies.table()).isEqualTo(SeedTables.of(config).rawCompanyChanges());
    assertThat(rawCompanies.sideTable()).as("the quarantine").isEqualTo(SeedTables.of(config).rejected());
    assertThat(rawCompanies.watermark()).as("the raw archive has none").isNull();

    StreamSpec dedup = StreamSpec.of(Seed.DEDUP, config);
    assertThat(dedup.table()).isEqualTo(SeedTables.of(config).events());
    assertThat(dedup.watermark()).isEqualTo(Duration.ofMinutes(30));
  }

  @Test
  void allRunsTheRawArchivesBeforeTheStreamsOverTheSameData() {
    assertThat(StreamSpec.all(config).stream().map(StreamSpec::name))
        .containsExactly("raw", "dedup", "windowed-counts", "raw-companies", "scd2");
  }

  @Test
  void overridesReplaceOnlyWhatIsGiven() {
    StreamSpec configured = StreamSpec.of(Seed.RAW, config);
    StreamSpec s = configured.withSource("/data/in").withTable(TableName.parse("x.raw")).withSideTable(null)
        .withCheckpoint(null);
    assertThat(s.source()).isEqualTo("/data/in");
    assertThat(s.table()).isEqualTo(TableName.parse("x.raw"));
    assertThat(s.archive()).as("a raw archive elsewhere declares the feed").isEqualTo(TableName.parse("x.raw"));
    assertThat(s.sideTable()).isEqualTo(configured.sideTable());
    assertThat(s.checkpoint()).isEqualTo(configured.checkpoint());
    StreamSpec dedup = StreamSpec.of(Seed.DEDUP, config);
    assertThat(dedup.withTable(TableName.parse("x.events")).archive()).as("the dedup's feed is still the raw "
        + "archive's").isEqualTo(dedup.archive());
  }

  @Test
  void checkpointRootWithATrailingSlash() {
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_CHECKPOINT_ROOT", "s3a://cp/root/"), Map.of());
    assertThat(StreamSpec.of(Seed.DEDUP, c).checkpoint()).isEqualTo("s3a://cp/root/dedup");
  }
}
