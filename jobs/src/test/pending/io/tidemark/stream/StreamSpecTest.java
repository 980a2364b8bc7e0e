package io.tidemark.stream;

import io.tidemark.testing.SeedTables;
import static org.assertj.core.api.Assertions.assertThat;

import io.tidemark.config.TableName;
import io.tidemark.config.TidemarkConfig;
import io.tidemark.land.SeedScenarios;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamSpecTest {
  private final TidemarkConfig config = TidemarkConfig.of(Map.of("TIDEMARK_HOME", "/srv/tm",
      "TIDEMARK_LANDING_BUCKET", "land", "TIDEMARK_COUNTS_WINDOW", "15 minutes"), Map.of());

  @Test
  void sourcesCheckpointsTablesAndDelaysComeFromTheConfiguration() {
    StreamSpec counts = StreamSpec.of(StreamKind.COUNTS, config);
    assertThat(counts.source()).isEqualTo("s3a://land/events/");
    assertThat(counts.checkpoint()).isEqualTo("/srv/tm/checkpoints/windowed-counts");
    assertThat(counts.table()).isEqualTo(SeedTables.of(config).eventCounts());
    assertThat(counts.watermark()).isEqualTo(Duration.ofMinutes(10));
    assertThat(counts.window()).isEqualTo(Duration.ofMinutes(15));

    StreamSpec scd2 = StreamSpec.of(StreamKind.SCD2, config);
    assertThat(scd2.source()).isEqualTo("s3a://land/companies/");
    assertThat(scd2.checkpoint()).isEqualTo("/srv/tm/checkpoints/scd2");
    assertThat(scd2.sideTable()).as("the change log").isEqualTo(SeedTables.of(config).companyChanges());

    StreamSpec rawCompanies = StreamSpec.of(StreamKind.raw(SeedScenarios.COMPANIES), config);
    assertThat(rawCompanies.checkpoint()).isEqualTo("/srv/tm/checkpoints/raw-companies");
    assertThat(rawCompanies.table()).isEqualTo(SeedTables.of(config).rawCompanyChanges());
    assertThat(rawCompanies.sideTable()).as("the quarantine").isEqualTo(SeedTables.of(config).rejected());
    assertThat(rawCompanies.watermark()).as("the raw archive has none").isNull();
  }

  @Test
  void allRunsTheRawArchivesBeforeTheStreamsOverTheSameData() {
    assertThat(StreamSpec.all(config).stream().map(StreamSpec::name))
        .containsExactly("raw", "dedup", "windowed-counts", "raw-companies", "scd2");
  }

  @Test
  void overridesReplaceOnlyWhatIsGiven() {
    StreamSpec configured = StreamSpec.of(StreamKind.RAW, config);
    StreamSpec s = configured.withSource("/data/in").withTable(TableName.parse("x.raw")).withSideTable(null)
        .withCheckpoint(null);
    assertThat(s.source()).isEqualTo("/data/in");
    assertThat(s.table()).isEqualTo(TableName.parse("x.raw"));
    assertThat(s.sideTable()).isEqualTo(configured.sideTable());
    assertThat(s.checkpoint()).isEqualTo(configured.checkpoint());
  }

  @Test
  void checkpointRootWithATrailingSlash() {
    TidemarkConfig c = TidemarkConfig.of(Map.of("TIDEMARK_CHECKPOINT_ROOT", "s3a://cp/root/"), Map.of());
    assertThat(StreamSpec.of(StreamKind.DEDUP, c).checkpoint()).isEqualTo("s3a://cp/root/dedup");
  }
}
