package io.tidemark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tidemark pipeline show} and {@code check}: what a file implies (tables, streams, checkpoints, settings), for
 * people and as JSON for scripts, and a file checked without running anything; a bad file one line and exit 2, with
 * {@code check} as with every other command that reads it.
 */
class PipelineCommandTest {
  @TempDir
  Path dir;

  @Test
  void showPrintsTheSeedsFeedsStreamsTablesAndCheckpoints() {
    CommandLineTest.Run r = CommandLineTest.run(Map.of("TIDEMARK_CHECKPOINT_ROOT", dir.toString()), "pipeline",
        "show");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("pipeline seed (seed.yml (built in))\n")
        .contains("fact feed events: lands under s3://tidemark-landing/events/arrival=NNNN/")
        .contains("stream windowed-counts: 5 minutes windows per company_id in facts.event_counts (company_id, "
            + "w_start, n), n = count(*), watermark 10 minutes\n    checkpoint " + dir.resolve("windowed-counts"))
        .contains("stream scd2: SCD2 versions per company_id in dims.companies, change log dims.companies_changes; a "
            + "change later than 1 day is applied by the restatement")
        .contains("shared tables: raw.rejected, audit.stream_batches, audit.restatement_log, "
            + "audit.restatement_plan, audit.checks, audit.expectations")
        .contains("    expectation amount_not_negative: amount >= 0 -> drop (each row, in every stream of events)\n")
        .contains("    expectation few_dropped: dropped at most 10% -> fail (each arrival, at publish)\n");
  }

  @Test
  void showAsJsonNamesEveryStreamTableAndSetting() throws Exception {
    CommandLineTest.Run r = CommandLineTest.run(Map.of("TIDEMARK_CHECKPOINT_ROOT", dir.toString()), "pipeline",
        "show", "--pipeline", "../pipelines/shop.yml", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("pipeline").asText()).isEqualTo("shop");
    List<String> streams = new ArrayList<>();
    json.get("streams").forEach(s -> streams.add(s.get("name").asText() + "@" + s.get("checkpoint").asText()));
    assertThat(streams).hasSize(11).contains("dedup-orders@" + dir.resolve("dedup-orders"),
        "sales-per-store@" + dir.resolve("sales-per-store"), "stores-history@" + dir.resolve("stores-history"));
    List<String> tables = new ArrayList<>();
    json.get("tables").forEach(t -> tables.add(t.asText()));
    assertThat(tables).hasSize(19).contains("facts.orders", "web.page_dwell", "dims.store_history",
        "landing.rejected");
    assertThat(json.get("settings").get("staging_branch").asText()).isEqualTo("ingest");
    assertThat(json.get("feeds").get(0).get("key")).extracting(JsonNode::asText)
        .containsExactly("order_id", "line_no");
  }

  @Test
  void checkSaysWhatAGoodFileDeclaresAndABadOneInOneLine() throws Exception {
    CommandLineTest.Run ok = CommandLineTest.run(Map.of(), "pipeline", "check", "../pipelines/shop.yml");
    assertThat(ok.code()).isZero();
    assertThat(ok.out()).isEqualTo("../pipelines/shop.yml: ok: pipeline shop, 2 fact feed(s), 2 dimension(s), 3 "
        + "windowed aggregate(s), 4 expectation(s), 11 stream(s), 19 table(s)\n");
    Path badRule = dir.resolve("bad-rule.yml");
    Files.writeString(badRule, Files.readString(Path.of("../pipelines/seed.yml"))
        .replace("condition: amount >= 0", "condition: amount >=").replace("action: warn", "action: shout"));
    CommandLineTest.Run rule = CommandLineTest.run(Map.of(), "pipeline", "check", badRule.toString());
    assertThat(rule.code()).as("a bad rule: before anything runs").isEqualTo(2);
    assertThat(rule.err()).startsWith("tidemark: " + badRule + ":").contains("'shout' is no action: warn, drop or fail")
        .hasLineCount(1);
    Path bad = dir.resolve("bad.yml");
    Files.writeString(bad, Files.readString(Path.of("../pipelines/seed.yml"))
        .replace("function: count}", "function: sum, column: company_id}"));
    CommandLineTest.Run refused = CommandLineTest.run(Map.of(), "pipeline", "check", bad.toString());
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.err()).startsWith("tidemark: " + bad).contains("company_id").endsWith("\n")
        .hasLineCount(1);
    CommandLineTest.Run show = CommandLineTest.run(Map.of("TIDEMARK_PIPELINE", bad.toString()), "pipeline", "show");
    assertThat(show.code()).as("every command that reads the file").isEqualTo(2);
    assertThat(show.err()).isEqualTo(refused.err());
    CommandLineTest.Run missing = CommandLineTest.run(Map.of(), "pipeline", "check", dir.resolve("none.yml")
        .toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("none.yml").hasLineCount(1);
  }
}
