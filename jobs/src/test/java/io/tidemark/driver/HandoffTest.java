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
    assertThat(runs("log", "ingest")).isTrue();
    assertThat(runs("services", "up")).isFalse();
    assertThat(runs("bench", "driver")).isFalse();
    assertThat(Handoff.runs(List.of("publish"), Map.of("TIDEMARK_TEST_CRASH", "publish-after-merge"))).isFalse();
  }

  @Test
  void driverStatusAloneIsAnsweredByTheSmallClient() {
    assertThat(Handoff.asksStatus(List.of("driver", "status"))).isTrue();
    assertThat(Handoff.asksStatus(List.of("--home", "h", "driver", "status"))).isTrue();
    assertThat(Handoff.asksStatus(List.of("--home", "driver", "sql", "status"))).isFalse();
    assertThat(Handoff.asksStatus(List.of("driver", "status", "--help"))).isFalse();
    assertThat(Handoff.asksStatus(List.of("driver", "start"))).isFalse();
    assertThat(Handoff.asksStatus(List.of("status"))).isFalse();
    assertThat(runs("driver", "status")).as("no command runs for it").isFalse();
  }

  @Test
  void aStatementOfTheNessieSqlExtensionsThatAsksTheContextForItsBranchRunsInAJvmOfItsOwn() {
    for (String statement : List.of("SHOW LOG", "show log main in nessie", "  Show Reference",
        "LIST REFERENCES", "USE REFERENCE dev IN nessie", "CREATE BRANCH IF NOT EXISTS x IN nessie",
        "create tag t in nessie from main", "DROP BRANCH x", "ASSIGN BRANCH ingest AT abc IN nessie",
        "ASSIGN BRANCH ingest IN nessie", "MERGE BRANCH x INTO main IN nessie", "merge\nbranch x")) {
      assertThat(runs("sql", statement)).as(statement).isFalse();
      assertThat(runs("--nessie-ref", "dev", "sql", "--format", "csv", statement)).as(statement).isFalse();
    }
    // those that name every reference they touch ask the context for nothing but the services, the command's
    for (String statement : List.of("ASSIGN BRANCH ingest TO ingest AT abc IN nessie", "assign tag t to main in nessie",
        "DROP BRANCH restate-42 IN nessie", "drop tag if exists t in nessie;", "LIST REFERENCES IN nessie")) {
      assertThat(runs("sql", statement)).as(statement).isTrue();
      assertThat(runs("--nessie-ref", "dev", "sql", "--format", "csv", statement)).as(statement).isTrue();
    }
    for (String statement : List.of("SELECT 'SHOW LOG'", "SHOW TABLES IN nessie.raw", "CREATE TABLE nessie.a.b (x INT)",
        "DROP TABLE nessie.a.b", "MERGE INTO nessie.a.b t USING s ON t.x = s.x WHEN MATCHED THEN DELETE",
        "SELECT * FROM nessie.raw.events VERSION AS OF 'ingest'")) {
      assertThat(runs("sql", statement)).as(statement).isTrue();
    }
  }
}
