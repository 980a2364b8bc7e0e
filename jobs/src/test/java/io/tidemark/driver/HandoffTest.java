package io.tidemark.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HandoffTest {
  private static boolean runs(String... args) {
    return Handoff.runs(List.of(args), Map.of());
  }

  @Test
  void theSparkCommandsGoToTheDriverTheOthersAndCrashPointsDoNot() {
    assertThat(runs("stream", "all")).isTrue();
    assertThat(runs("--nessie-ref", "dev", "sql", "SELECT 1")).isTrue();
    assertThat(runs("services", "up")).isFalse();
    assertThat(runs("bench", "driver")).isFalse();
    assertThat(Handoff.runs(List.of("publish"), Map.of("TIDEMARK_TEST_CRASH", "publish-after-merge"))).isFalse();
  }

  @Test
  void aStatementOfTheNessieSqlExtensionsRunsInAJvmOfItsOwnWhereTheContextIsTheCommands() {
    for (String statement : List.of("SHOW LOG", "show log main in nessie", "  Show Reference",
        "LIST REFERENCES IN nessie", "USE REFERENCE dev IN nessie", "CREATE BRANCH IF NOT EXISTS x IN nessie",
        "create tag t in nessie from main", "DROP BRANCH x IN nessie",
        "ASSIGN BRANCH ingest TO ingest AT abc IN nessie",
        "MERGE BRANCH x INTO main IN nessie", "merge\nbranch x")) {
      assertThat(runs("sql", statement)).as(statement).isFalse();
      assertThat(runs("--nessie-ref", "dev", "sql", "--format", "csv", statement)).as(statement).isFalse();
    }
    for (String statement : List.of("SELECT 'SHOW LOG'", "SHOW TABLES IN nessie.raw", "CREATE TABLE nessie.a.b (x INT)",
        "DROP TABLE nessie.a.b", "MERGE INTO nessie.a.b t USING s ON t.x = s.x WHEN MATCHED THEN DELETE",
        "SELECT * FROM nessie.raw.events VERSION AS OF 'ingest'")) {
      assertThat(runs("sql", statement)).as(statement).isTrue();
    }
  }
}
